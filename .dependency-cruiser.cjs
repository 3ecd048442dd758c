// The parts map, checked on every `npm run lint`. Each rule says which way imports may point and
// why; a new import that breaks one fails lint (test/lint shows that it does).
const TESTS = '\\.test\\.ts$';
const CORE = '^src/(version|channels)/|^src/errors\\.ts$';
// The leaf folders: what both the shipped service and the toolkit use (the sanitiser, output,
// atomic writes and locks, archives, processes, where a build's version comes from).
const LEAVES = '^src/(text|console|files|archives|processes|http|version-source)/';

// The Docker adapters: the client both engines share, the Docker build engine, the Swarm and
// Compose deployment engines. Only they may name dockerode.
const DOCKER_ADAPTERS = '^src/(docker-client|build-engines/docker|deployment-engines/(swarm|compose))/';
// dockerode, resolved (its types, its code) or not installed (a throwaway project).
const DOCKERODE = '^dockerode$|^node_modules/(@types/)?dockerode/';
// Still naming dockerode's type while issue 38's engine rework switches them to `DockerClient`:
// drop this exception when that branch is merged.
const UPGRADE_STEPS_PENDING = '^src/commands/upgrade/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment:
        'The version and channel core (what a version is, which tags a channel gets, the plan) is ' +
        'pure: no Node IO module, no package, no toolkit module outside the core. Its rules are ' +
        'property-tested without IO and shipped inside the service and the svc bundle.',
      severity: 'error',
      from: { path: CORE, pathNot: TESTS },
      to: {
        pathNot: [CORE],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'leaves-are-leaves',
      comment:
        'The leaf folders (LEAVES) hold what both the shipped service and the toolkit need (sanitiser, ' +
        'atomic writes, redaction, version resolution): they may use Node, the core and each other, ' +
        'nothing else of ours.',
      severity: 'error',
      from: { path: LEAVES, pathNot: TESTS },
      to: { path: '^src/', pathNot: [CORE, LEAVES] },
    },
    {
      name: 'service-ships-alone',
      comment:
        'src/service is what ships to users (API, worker, web client, svc): it imports only its own ' +
        'folder, the version core and the leaf folders, so no toolkit machinery lands in their bundles.',
      severity: 'error',
      from: { path: '^src/service/', pathNot: TESTS },
      to: { path: '^src/', pathNot: [CORE, LEAVES, '^src/service/'] },
    },
    {
      name: 'toolkit-knows-no-service',
      comment:
        'The toolkit releases any service: nothing of it may import the reference service ' +
        '(src/service), so building, promoting and verifying never take a path only the reference ' +
        'takes. What both need (reading or packing an archive, HTML escaping) lives in a leaf folder. ' +
        'Only the package facade (src/index.ts, src/exports/) re-exports the reference artifacts.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/service/', '^src/index\\.ts$', '^src/exports/', TESTS] },
      to: { path: '^src/service/' },
    },
    {
      name: 'upgrade-plan-is-pure',
      comment:
        'src/upgrade decides what `release upgrade` does (the plan, convergence, the rollback and ' +
        'its exit code) from plain data, so it is unit-tested without an engine: it may use the ' +
        'version core and nothing else; the Swarm adapter (src/deployment-engines/swarm/swarm.ts) does the IO.',
      severity: 'error',
      from: { path: '^src/upgrade/', pathNot: TESTS },
      to: { pathNot: [CORE, '^src/upgrade/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'gitops-plan-is-pure',
      comment:
        'src/gitops decides where a release goes in deployment files (the places, the plan of ' +
        'edits, verify findings) from text and plain data: the yaml package and the version core, ' +
        'no file system; the reading and the all-or-none write live in src/commands/bump.',
      severity: 'error',
      from: { path: '^src/gitops/', pathNot: TESTS },
      to: {
        pathNot: [CORE, '^src/gitops/', '^node_modules/yaml/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'dockerode-only-in-docker-adapters',
      comment:
        'dockerode (an optional peer dependency, a third of the install) is a detail of the Docker ' +
        'adapters (DOCKER_ADAPTERS): everything else names a client by the `DockerClient` alias of ' +
        'src/docker-client/connect.ts and reads engines through the adapters, not even importing ' +
        "dockerode's types, so a new engine or a change of client touches those folders only.",
      severity: 'error',
      from: { path: '^src/', pathNot: [DOCKER_ADAPTERS, UPGRADE_STEPS_PENDING] },
      to: { path: DOCKERODE },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Folders form layers: no folder may (indirectly) import itself back.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Packages are left out of the graph, except dockerode, which a rule above keeps in its place.
    exclude: { path: 'node_modules/(?!(@types/)?dockerode/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
};
