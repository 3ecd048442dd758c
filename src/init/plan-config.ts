import { type ArtifactImageRole, IMAGE_ROLES, type ImageRole, REPOSITORY } from '../config/constants.ts';
import { coreCommand } from '../text/command-words.ts';
import { buildArgValue, isBuildArgSource } from './build-arg-value.ts';
import type { Detection, FoundDockerfile } from './detect.ts';
import type { DockerRecipe } from './dockerfile.ts';
import { type ImageSource, imageSources } from './image-candidates.ts';
import type { InitPlan, PlannedArtifact } from './init-plan.ts';
import { cliArtifact } from './plan-cli.ts';
import { repositoryName } from './repository-name.ts';
import { toolchainValue } from './toolchain-value.ts';
import { versionVariables } from './version-variables.ts';

export type { InitPlan, PlannedArtifact } from './init-plan.ts';

export interface InitChoices {
  /** The project's name (image names are `<name>-<artifact>`): --name, else detected, else the folder. */
  name: string;
  registry?: string;
  /** `--compose-file`: the compose files to read instead of `docker compose`'s default one. */
  composeFiles?: readonly string[];
  /** The repository's tags, newest first: a CLI whose version is none of them has its own line. */
  tags?: readonly string[];
  /** Whether a repository path exists (a file or a folder): for the build context of a Dockerfile. */
  exists?: (path: string) => boolean;
  /** A repository file's text (a toolchain's version file, go.mod), if it was listed. */
  read?: (path: string) => string | undefined;
  /** The repository's paths: the build scripts a build arg's value may be given in. */
  paths?: readonly string[];
}

const ROLE_PATTERNS: Record<ImageRole, RegExp> = {
  api: /(^|-)(api|server|backend|app|service)($|-)/,
  worker: /(^|-)(worker|workers|jobs?|queue|consumer|tasks?|beat|scheduler|cron)($|-)/,
  web: /(^|-)(web|frontend|ui|client|site|www)($|-)/,
};
// What a command says about a role of one image: `celery worker`, `docker-entrypoint-worker.sh`.
const COMMAND_ROLES: [ImageRole, RegExp][] = [
  ['worker', /(?:^|[^a-z])(?:worker|celery|rq|sidekiq|beat|scheduler|cron)(?:[^a-z]|$)/],
  ['api', /(?:^|[^a-z])(?:api|gunicorn|uvicorn|server)(?:[^a-z]|$)/],
];
// A one-shot job's command: a migration (`migrate deploy`, `db:migrate`, `alembic upgrade head`,
// `docker-entrypoint-migrator.sh`).
const JOB_COMMAND = /(?:^|[^a-z])(?:migrate|migrator|migrations?|db:migrate|alembic upgrade)(?:[^a-z]|$)/;
const REGISTRY = /^[a-z0-9.-]+(?::[0-9]+)?(?:\/[a-z0-9._-]+)*$/;
// A second web client's name: an admin dashboard, a console, a docs site, another front end.
const MORE_WEB = /(^|-)(web|webapp|frontend|ui|client|site|www|admin|dashboard|console|portal|docs|spa)($|-)/;
// Variables only a client bundle reads at build time (Vite, Create React App, Next.js).
const CLIENT_ARG = /^(VITE_|REACT_APP_|NEXT_PUBLIC_)/;

/**
 * The client build variables a candidate's own Dockerfile reads: none when it builds one target of
 * a Dockerfile (its ARGs are any stage's, a server target's included).
 */
function clientBuildArgs(candidate: Candidate): string[] {
  const file = candidate.source?.dockerfile;
  if (!file || candidate.docker?.target) return [];
  return file.facts.args.map((a) => a.name).filter((name) => CLIENT_ARG.test(name));
}

interface Candidate {
  name: string;
  from: string;
  source?: ImageSource;
  docker?: { context: string; dockerfile?: string; target?: string };
  buildArgs?: Record<string, string>;
  recipe?: DockerRecipe & { base: string };
  unsupported?: string;
  cliArchive?: string;
  role?: ArtifactImageRole;
  /** The artifact whose image this one runs. */
  runs?: Candidate;
  /** Other artifacts run this one's image. */
  shared?: boolean;
  image?: string;
}

export function planConfig(detection: Detection, choices: InitChoices): InitPlan {
  const sources = imageSources(detection, choices.exists ?? (() => false), choices.composeFiles ?? []);
  const fromCompose =
    sources.registry && REGISTRY.test(sources.registry.registry) ? sources.registry : undefined;
  const plan: InitPlan = {
    registry: choices.registry ?? fromCompose?.registry ?? 'oci-layout:.release/oci',
    artifacts: [],
    versionVariables: { server: [], client: [] },
    found: [...sources.found],
    guessed: [],
    todo: [...sources.refused],
  };
  if (!choices.registry && fromCompose)
    plan.guessed.push(`registry: "${fromCompose.registry}", from ${fromCompose.from}`);
  else if (!choices.registry)
    plan.todo.push(
      'registry: images go to the embedded OCI layout (.release/oci); set your registry (e.g. "ghcr.io/<org>") or pass --registry',
    );
  const prefix = repositoryName(choices.name);
  const candidates = imageCandidates(sources.sources, plan);
  assignRoles(candidates, plan);
  const variables = versionVariables(
    candidates
      .filter((c) => !c.runs)
      .flatMap((c) =>
        [
          ...(c.source?.dockerfile?.facts.args ?? []),
          ...Object.entries(c.source?.docker?.args ?? {}).map(([name, value]) => ({ name, default: value })),
          ...(c.source?.versionArgs ?? []).map((name) => ({ name, setByCi: true })),
        ].map((arg) => ({
          ...arg,
          web: c.role === 'web',
          base: c.source?.dockerfile?.facts.baseArgs.includes(arg.name) ?? false,
        })),
      ),
  );
  plan.versionVariables = { server: variables.server, client: variables.client };
  if (variables.server.length || variables.client.length)
    plan.found.push(
      `versionVariables: ${[...variables.server, ...variables.client].join(', ')} (build args that carry the version; release build sets them)`,
    );
  for (const shared of variables.shared)
    plan.found.push(
      `ARG ${shared}: read by the web image and a server image, a server variable (server names reach every image's build args)`,
    );
  for (const pinned of variables.pinned)
    plan.found.push(`ARG ${pinned}: a pinned tool version, not the service's (left alone)`);
  for (const { name, why } of variables.toolchain)
    plan.found.push(`ARG ${name}: ${why}, a toolchain's version and not the service's (left alone)`);
  toolchainArgs(candidates, variables.toolchain, choices.read ?? (() => undefined), plan);
  const read = choices.read ?? (() => undefined);
  const scripts = (choices.paths ?? []).filter(isBuildArgSource).flatMap((path) => {
    const text = read(path);
    return text === undefined ? [] : [{ path, text }];
  });
  for (const candidate of candidates)
    plan.artifacts.push(imageArtifact(candidate, prefix, detection, plan, scripts));
  for (const role of IMAGE_ROLES) {
    if (candidates.some((c) => c.role === role)) continue;
    plan.artifacts.push({
      name: role,
      value: false,
      notes: [`no ${role} found: declare it here if you have one`],
    });
  }
  plan.artifacts.push(cliArtifact(detection, prefix, plan, choices.tags));
  plan.found.push(...sources.skipped.map((s) => `skipped ${s}`));
  plan.todo.push(
    'signing: run `npx release keygen`, commit release-signing.pub, keep release-signing.key out of git (a CI secret, RELEASE_SIGNING_KEY, with RELEASE_SIGNING_PASSPHRASE)',
  );
  return plan;
}

/**
 * A toolchain ARG with no usable default (none, or a placeholder like `PLEASE_PROVIDE_GO_VERSION`)
 * that the build would start FROM a wrong or missing tag with: its value as the repository pins
 * it (toolchain-value.ts), else a TODO.
 */
function toolchainArgs(
  candidates: Candidate[],
  toolchain: readonly { name: string }[],
  read: (path: string) => string | undefined,
  plan: InitPlan,
): void {
  for (const { name } of toolchain)
    for (const c of candidates) {
      if (c.runs || !c.docker || c.buildArgs?.[name] !== undefined) continue;
      const arg = c.source?.dockerfile?.facts.args.find((a) => a.name === name);
      if (!arg || (arg.default !== undefined && /^v?\d/.test(arg.default))) continue;
      const found = toolchainValue(name, read);
      if (found) {
        c.buildArgs = { ...c.buildArgs, [name]: found.value };
        plan.guessed.push(`artifacts.${c.name}.buildArgs.${name}: "${found.value}", from ${found.from}`);
      } else if (c.source?.dockerfile?.facts.baseArgs.includes(name))
        plan.todo.push(
          `artifacts.${c.name}.buildArgs.${name}: the toolchain version its base image is tagged with (ARG ${name} has ${arg.default === undefined ? 'no default' : `the default "${arg.default.slice(0, 40)}"`})`,
        );
    }
}

function imageCandidates(sources: ImageSource[], plan: InitPlan): Candidate[] {
  const out: Candidate[] = [];
  for (const source of sources) {
    if (source.runs) {
      out.push({ name: source.name, from: source.from, source });
      continue;
    }
    if (source.nodeFolder) {
      const { dir, entry } = source.nodeFolder;
      out.push({
        name: dir,
        from: source.from,
        source,
        recipe: {
          base: 'node',
          copies: [{ from: dir, to: `/srv/${dir}` }],
          entrypoint: ['/usr/local/bin/node', `/srv/${dir}/${entry}`],
          env: {},
          exposedPorts: [],
          user: '65534:65534',
        },
      });
      continue;
    }
    const docker = source.docker!;
    const candidate: Candidate = {
      ...fromDockerfile(source.name, source.dockerfile, docker.context, docker.dockerfile, docker.target),
      from: source.from,
      source,
    };
    const args = Object.fromEntries(
      Object.entries(docker.args).filter(([name, value]) => !value.includes('$') && !/VERSION/i.test(name)),
    );
    if (Object.keys(args).length) candidate.buildArgs = args;
    out.push(candidate);
  }
  // `cli` is the CLI artifact's key (written after the images): an image of that name (a Dockerfile
  // target `cli`) would be a second key of the same name, and one of the two lost.
  const names = new Set<string>(['cli']);
  for (const candidate of out) {
    const base = artifactName(candidate.name) === 'cli' ? 'cli-image' : artifactName(candidate.name);
    let name = base;
    for (let i = 2; names.has(name); i++) name = `${base}-${i}`;
    names.add(name);
    candidate.name = name;
  }
  for (const candidate of out) {
    if (candidate.source?.runs) candidate.runs = out.find((c) => c.source?.name === candidate.source!.runs);
    if (candidate.runs) candidate.runs.shared = true;
    plan.found.push(candidate.from);
    if (candidate.source?.contextReason)
      plan.guessed.push(`artifacts.${candidate.name}.${candidate.source.contextReason}`);
  }
  return out;
}

function fromDockerfile(
  name: string,
  found: FoundDockerfile | undefined,
  context: string,
  dockerfile: string,
  target: string | undefined,
): Omit<Candidate, 'from'> {
  const candidate: Omit<Candidate, 'from'> = {
    name,
    docker: {
      context,
      ...(dockerfile !== join(context, 'Dockerfile') ? { dockerfile } : {}),
      ...(target ? { target } : {}),
    },
  };
  if (!found) {
    candidate.unsupported = `${dockerfile} was not found in the repository`;
    return candidate;
  }
  // A target other than the last stage is not what the recipe read; only the final stage translates.
  const lastTarget = found.facts.targets.at(-1);
  const recipe = found.facts.recipe;
  if ('unsupported' in recipe) candidate.unsupported = recipe.unsupported;
  else if (!target || target === lastTarget) {
    const archive = recipe.copies.find((c) => /\.(tar\.gz|tgz)$/.test(c.from));
    if (archive) candidate.cliArchive = archive.from;
    const copies = recipe.copies
      .filter((c) => c !== archive)
      .map((c) => ({
        from: clean(join(context, c.from)),
        to: recipe.workdir && !c.to.startsWith('/') ? `${recipe.workdir}/${c.to}` : c.to,
      }));
    if (copies.every((c) => c.to.startsWith('/')) && !archive)
      candidate.recipe = { ...recipe, copies, base: 'node' };
    else if (archive)
      candidate.unsupported = `it copies the CLI archive (${archive.from}), placed by the docker engine`;
  }
  return candidate;
}

function assignRoles(candidates: Candidate[], plan: InitPlan): void {
  // One-shot jobs first (a migration of the API's image), so no long-running role takes them.
  for (const c of candidates) {
    const command = (c.source?.command ?? []).join(' ').toLowerCase();
    const why =
      c.source?.oneShot ?? (JOB_COMMAND.test(command) ? `its command (${command.slice(0, 80)})` : undefined);
    if (!why) continue;
    c.role = 'job';
    plan.guessed.push(`artifacts.${c.name}: role job (runs once, before the API), from ${why}`);
  }
  for (const role of IMAGE_ROLES) {
    const exact = candidates.find((c) => c.name === role && !c.role);
    if (exact) exact.role = role;
  }
  for (const role of IMAGE_ROLES) {
    if (candidates.some((c) => c.role === role)) continue;
    const guess = candidates.find((c) => !c.role && !isRole(c.name) && ROLE_PATTERNS[role].test(c.name));
    if (guess) {
      guess.role = role;
      plan.guessed.push(`artifacts.${guess.name}: role ${role}, from its name`);
      continue;
    }
    // Roles of one image are told apart by the command each runs.
    const pattern = COMMAND_ROLES.find(([r]) => r === role)?.[1];
    const byCommand =
      pattern &&
      candidates.find((c) => !c.role && pattern.test((c.source?.command ?? []).join(' ').toLowerCase()));
    if (byCommand) {
      byCommand.role = role;
      plan.guessed.push(
        `artifacts.${byCommand.name}: role ${role}, from its command (${byCommand.source!.command!.join(' ').slice(0, 80)})`,
      );
    }
  }
  // Several web clients (an app, an admin dashboard, a docs site): each built image that says
  // it is one, by its name or by the client build variables its Dockerfile reads.
  const api = candidates.some((c) => c.role === 'api');
  for (const c of candidates) {
    if (c.role || c.runs) continue;
    const named = MORE_WEB.test(c.name) || (api && /(^|-)app($|-)/.test(c.name));
    const reads = clientBuildArgs(c);
    if (!named && reads.length === 0) continue;
    c.role = 'web';
    plan.guessed.push(
      `artifacts.${c.name}: role web, ${named ? 'from its name' : `from the client build variables its Dockerfile reads (${reads.slice(0, 3).join(', ')})`}`,
    );
  }
  // Several workers may run one image (a worker and a scheduler, `beat-worker`): by their
  // command, else by their name.
  const worker = COMMAND_ROLES.find(([r]) => r === 'worker')![1];
  for (const c of candidates) {
    if (c.role || !c.runs) continue;
    const command = (c.source?.command ?? []).join(' ');
    if (worker.test(command.toLowerCase())) {
      c.role = 'worker';
      plan.guessed.push(`artifacts.${c.name}: role worker, from its command (${command.slice(0, 80)})`);
    } else if (ROLE_PATTERNS.worker.test(c.name)) {
      c.role = 'worker';
      plan.guessed.push(`artifacts.${c.name}: role worker, from its name`);
    }
  }
  // One image and no role matched: a single-image service is its API.
  const built = candidates.filter((c) => !c.runs);
  if (built.length === 1 && !built[0]!.role && !candidates.some((c) => c.role === 'api')) {
    built[0]!.role = 'api';
    plan.guessed.push(`artifacts.${built[0]!.name}: role api (the only image built)`);
  }
}

function imageArtifact(
  candidate: Candidate,
  prefix: string,
  detection: Detection,
  plan: InitPlan,
  scripts: readonly { path: string; text: string }[],
): PlannedArtifact {
  const value: Record<string, unknown> = {};
  const notes = [`found: ${candidate.from}`];
  const at = `artifacts.${candidate.name}`;
  if (candidate.role && candidate.role !== candidate.name) value['role'] = candidate.role;
  if (candidate.runs) {
    // A role of one image: built, signed and promoted once, by the artifact that declares the build.
    value['image'] = imageName(candidate.runs, prefix);
    notes.push(`runs the image of ${candidate.runs.name} (built once, by ${candidate.runs.name})`);
    commandOf(candidate, value, plan);
    return { name: candidate.name, value, notes };
  }
  value['image'] = imageName(candidate, prefix);
  if (candidate.shared) commandOf(candidate, value, plan);
  plan.guessed.push(
    `${at}.image: "${String(value['image'])}"${candidate.source?.imageName === value['image'] ? ' (its image: line)' : ''}`,
  );
  const script = detection.buildScripts.find((s) => s.artifact === candidate.name);
  const web = detection.webBuild;
  if (script) {
    value['build'] = { command: script.command };
    notes.push(`build: ${script.path} runs before the image is assembled`);
  } else if (candidate.role === 'web' && web && (candidate.recipe || !candidate.docker)) {
    // Only for an image assembled from the build's output: a Dockerfile that runs the build itself
    // (a multi-stage one) needs nothing run before it.
    value['build'] = {
      command: ['npm', 'run', ...(web.dir === '.' ? [] : ['--prefix', web.dir]), web.script],
    };
    notes.push(`build: the web build script "${web.script}" (${web.command})`);
    plan.guessed.push(`${at}.build: npm run ${web.script}`);
  }
  if (candidate.docker) {
    notes.push('docker engine: built from the Dockerfile in its context');
    Object.assign(value, candidate.docker);
    if (candidate.buildArgs) value['buildArgs'] = candidate.buildArgs;
    for (const [arg, image] of Object.entries(candidate.source?.chained ?? {}))
      plan.todo.push(
        `${at}.buildArgs.${arg}: the repository's CI sets it to ${image}, an image another of its builds makes first (kept as written): build that one before it, or give the reference of a released one`,
      );
    // BASE_IMAGE is the one release build sets itself (the config's base).
    for (const arg of candidate.source?.dockerfile?.facts.fromArgs ?? [])
      if (arg !== 'BASE_IMAGE' && !candidate.buildArgs?.[arg] && !candidate.source?.chained?.[arg]) {
        // The value the repository's own build script gives it, else the user must.
        const given = buildArgValue(arg, scripts);
        if (given) {
          candidate.buildArgs = { ...candidate.buildArgs, [arg]: given.value };
          value['buildArgs'] = candidate.buildArgs;
          plan.guessed.push(`${at}.buildArgs.${arg}: "${given.value}", from ${given.from}`);
          continue;
        }
        plan.todo.push(
          `${at}.buildArgs.${arg}: the image its Dockerfile starts FROM (ARG ${arg} has no default; or use BASE_IMAGE, which release build sets from base)`,
        );
      }
    if (candidate.cliArchive) {
      value['cliArchive'] = candidate.cliArchive;
      notes.push(
        `cliArchive: the Dockerfile copies ${candidate.cliArchive}; release build puts the CLI archive there`,
      );
    }
  }
  if (candidate.recipe) {
    const r = candidate.recipe;
    notes.push(
      candidate.docker
        ? 'oci engine (no Docker needed): the same image, read from the Dockerfile'
        : 'oci engine (no Docker needed): the folder copied to /srv, run with node',
    );
    if (!candidate.docker)
      plan.guessed.push(`${at}: files and entrypoint (the folder at /srv/${candidate.name}, run with node)`);
    value['files'] = r.copies;
    if (r.workdir) value['workdir'] = r.workdir;
    value['entrypoint'] = r.entrypoint;
    if (r.cmd) value['cmd'] = r.cmd;
    if (Object.keys(r.env).length) value['env'] = r.env;
    if (r.user) value['user'] = r.user;
    if (r.exposedPorts.length) value['exposedPorts'] = r.exposedPorts;
  } else if (candidate.unsupported) {
    notes.push(`docker engine only: ${candidate.unsupported}`);
  }
  if (candidate.role === 'api' && !candidate.cliArchive && !candidate.docker)
    plan.todo.push(
      `${at}.cliArchive: where your API serves the CLI archive from (default /app/service-cli.tar.gz)`,
    );
  return { name: candidate.name, value, notes };
}

/**
 * The command a role of one image runs: how verify, watch, bump and upgrade tell the roles apart.
 * Written as the command itself, without the `sh -c` or init wrapper the compose file runs it in
 * (every reader strips them the same way), so the config says what the role is.
 */
function commandOf(candidate: Candidate, value: Record<string, unknown>, plan: InitPlan): void {
  const command = candidate.source?.command;
  if (command) value['command'] = coreCommand(command);
  else if (candidate.runs)
    plan.todo.push(
      `artifacts.${candidate.name}.command: the command its containers run (the compose file gives none; one role of ${candidate.runs.name}'s image may run its default)`,
    );
}

function imageName(candidate: Candidate, prefix: string): string {
  const line = candidate.source?.imageName;
  if (line && REPOSITORY.test(line)) return line;
  // The key `cli-image` (the CLI has `cli`) still names the image after the target: x-cli.
  const name = candidate.name === 'cli-image' ? 'cli' : candidate.name;
  // `hoppscotch-backend` under the package `hoppscotch-app`: already named for the project.
  const first = prefix.split('-')[0]!;
  return name.startsWith(`${prefix}-`) || name === prefix || name.startsWith(`${first}-`)
    ? name
    : `${prefix}-${name}`;
}

function isRole(name: string): boolean {
  return (IMAGE_ROLES as readonly string[]).includes(name);
}

/** An artifact key: lowercase letters, digits and -, starting with a letter. */
function artifactName(raw: string): string {
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '');
  return (name || 'image').slice(0, 63);
}

function join(dir: string, path: string): string {
  return dir === '.' || dir === '' ? path : `${dir}/${path}`;
}

function clean(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/') || '.';
}
