// The parts map, checked on every `npm run lint`. Each rule says which way imports may point and
// why; a new import that breaks one fails lint (test/lint shows that it does).
const TESTS = '\\.test\\.ts$';
const CORE = '^src/(version|channels)/|^src/errors\\.ts$';
// The leaf folders: what both the shipped service and the toolkit use (the sanitiser, output,
// atomic writes and locks, archives, processes, where a build's version comes from).
// The layers a deployment engine has a folder in, and the one file that names every engine.
const ENGINE_LAYERS = 'deployment-engines|upgrade|commands/upgrade';
const ENGINE_REGISTRY = 'src/commands/upgrade/engines\\.ts';
// Where dockerode may be imported, and how it resolves (its package, its types, or by name when
// it is not installed: it is an optional peer).
const DOCKER_ADAPTERS = '^src/(?:docker-client|build-engines/docker|deployment-engines/(?:swarm|compose))/';
const DOCKERODE = ['^node_modules/dockerode/', '^node_modules/@types/dockerode/', '^dockerode$'];
const LEAVES = '^src/(text|console|files|archives|processes|http|version-source|cli-version)/';

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
      name: 'deployment-engines-stay-apart',
      comment:
        'A deployment engine (Swarm, Compose, one day Kubernetes) lives in a folder of its own at ' +
        'each layer: its adapter (src/deployment-engines/<engine>), its pure rules ' +
        '(src/upgrade/<engine>) and its steps (src/commands/upgrade/<engine>). One engine never ' +
        'imports another, at any layer: what all share is neutral and lives at the root of those ' +
        'folders, what the Docker engines share in commands/upgrade/docker/, so a new engine is new folders and a registry entry, and no engine breaks another.',
      severity: 'error',
      from: { path: `^src/(?:${ENGINE_LAYERS})/([^/]+)/`, pathNot: TESTS },
      to: {
        path: `^src/(?:${ENGINE_LAYERS})/[^/]+/`,
        pathNot: `^src/(?:${ENGINE_LAYERS})/(?:$1|docker)/`,
      },
    },
    {
      name: 'neutral-upgrade-knows-no-engine',
      comment:
        'The neutral parts of `release upgrade` (roles, targets, stop reasons, the outcome, the ' +
        'steps every engine shares: the files at the root of src/upgrade and src/commands/upgrade) ' +
        'import no engine and no Docker client: engines build on them, never the reverse. Only the ' +
        'engine registry names the engines.',
      severity: 'error',
      from: {
        path: '^src/(?:upgrade|commands/upgrade)/[^/]+$',
        pathNot: [TESTS, `^${ENGINE_REGISTRY}$`],
      },
      to: { path: [`^src/(?:${ENGINE_LAYERS})/[^/]+/`, '^src/docker-client/'] },
    },
    {
      name: 'verify-knows-no-upgrade-or-command',
      comment:
        'src/verify holds the checks, the probes and the report that `release verify`, `release ' +
        'watch` and the proof of `release upgrade` run: it imports no command and nothing of ' +
        '`release upgrade`. What both read (the API version endpoint, the Swarm views, the container ' +
        'facts) lives in a neutral folder; what upgrade asks of verify is handed in by the program (src/cli).',
      severity: 'error',
      from: { path: '^src/verify/' },
      to: { path: '^src/(?:upgrade|commands)/' },
    },
    {
      name: 'upgrade-knows-no-verify',
      comment:
        '`release upgrade` (src/upgrade, src/commands/upgrade) never imports src/verify: its proof ' +
        "takes verify's checks as a function the program hands in (commands/upgrade/prove-deployment.ts), " +
        'and what both read lives in neutral folders, so either can change without the other.',
      severity: 'error',
      from: { path: '^src/(?:upgrade|commands/upgrade)/' },
      to: { path: '^src/verify/' },
    },
    {
      name: 'commands-stay-apart',
      comment:
        'Each command folder (src/commands/<command>/) is a room of its own: it never imports another ' +
        "command's folder. What two commands share (the deployments verify and watch read, the " +
        "deployment files bump writes and verify reads, a build's timing) lives in a library folder; " +
        "the files at the root of src/commands (the context, the output) are every command's.",
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/' },
      to: { path: '^src/commands/[^/]+/', pathNot: '^src/commands/$1/' },
    },
    {
      name: 'dockerode-only-in-docker-adapters',
      comment:
        'dockerode (and its types) is imported only by the Docker adapters: the client ' +
        '(src/docker-client), the Docker image build engine and the Swarm and Compose deployment ' +
        'engines. Everything else talks to them, so an engine without Docker (Kubernetes, the OCI ' +
        'build engine) never loads it, and a missing optional dockerode fails in one place.',
      severity: 'error',
      from: { path: '^src/', pathNot: [TESTS, DOCKER_ADAPTERS] },
      to: { path: DOCKERODE },
    },
    {
      name: 'gitops-plan-is-pure',
      comment:
        'src/gitops decides where a release goes in deployment files (the places, the plan of ' +
        'edits, verify findings) from text and plain data: the yaml package (through the one bounded ' +
        'reader in src/text), the version core, no file system; the reading lives in ' +
        'src/deployment-files, the all-or-none write in src/commands/bump.',
      severity: 'error',
      from: { path: '^src/gitops/', pathNot: TESTS },
      to: {
        pathNot: [CORE, '^src/gitops/', '^src/text/', '^node_modules/yaml/'],
        dependencyTypesNot: ['type-only'],
      },
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
    // dockerode stays in the graph (not followed): the rule above must see who imports it.
    exclude: { path: 'node_modules/(?!dockerode/|@types/dockerode/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
};
