import { IMAGE_ROLES, type ImageRole, REPOSITORY } from '../config/constants.ts';
import type { Detection, FoundDockerfile } from './detect.ts';
import type { DockerRecipe } from './dockerfile.ts';

/** What the written config says about one artifact, and the comment lines that go above it. */
export interface PlannedArtifact {
  name: string;
  value: Record<string, unknown> | false;
  notes: string[];
}

/** `release init`'s decision, before anything is written: the config, and what to tell the user. */
export interface InitPlan {
  registry: string;
  artifacts: PlannedArtifact[];
  /** Read from the repository as it is. */
  found: string[];
  /** Decided by a rule of thumb: check these. */
  guessed: string[];
  /** Not knowable from the files: the user must fill these in. */
  todo: string[];
}

export interface InitChoices {
  /** The project's name (image names are `<name>-<artifact>`): --name, else detected, else the folder. */
  name: string;
  registry?: string;
}

const ROLE_PATTERNS: Record<ImageRole, RegExp> = {
  api: /(^|-)(api|server|backend|app|service)($|-)/,
  worker: /(^|-)(worker|workers|jobs?|queue|consumer|tasks?)($|-)/,
  web: /(^|-)(web|frontend|ui|client|site|www)($|-)/,
};

interface Candidate {
  name: string;
  from: string;
  docker?: { context: string; dockerfile?: string; target?: string };
  recipe?: DockerRecipe & { base: string };
  unsupported?: string;
  cliArchive?: string;
  role?: ImageRole;
}

export function planConfig(detection: Detection, choices: InitChoices): InitPlan {
  const plan: InitPlan = {
    registry: choices.registry ?? 'oci-layout:.release/oci',
    artifacts: [],
    found: [],
    guessed: [],
    todo: [],
  };
  if (!choices.registry)
    plan.todo.push(
      'registry: images go to the embedded OCI layout (.release/oci); set your registry (e.g. "ghcr.io/<org>") or pass --registry',
    );
  const prefix = repositoryName(choices.name);
  const candidates = imageCandidates(detection, plan);
  assignRoles(candidates, plan);
  for (const candidate of candidates) plan.artifacts.push(imageArtifact(candidate, prefix, detection, plan));
  for (const role of IMAGE_ROLES) {
    if (candidates.some((c) => c.role === role)) continue;
    plan.artifacts.push({
      name: role,
      value: false,
      notes: [`no ${role} found: declare it here if you have one`],
    });
  }
  plan.artifacts.push(cliArtifact(detection, prefix, plan));
  for (const compose of detection.compose)
    plan.found.push(`${compose.path}: services ${compose.services.map((s) => s.name).join(', ')}`);
  return plan;
}

function imageCandidates(detection: Detection, plan: InitPlan): Candidate[] {
  const out: Candidate[] = [];
  const used = new Set<string>();
  // Compose services that build an image name the artifacts, with the context and target they use.
  for (const { path, services } of detection.compose) {
    for (const service of services) {
      if (!service.build) continue;
      const context = clean(service.build.context);
      const dockerfile = clean(join(context, service.build.dockerfile ?? 'Dockerfile'));
      const found = detection.dockerfiles.find((d) => d.path === dockerfile);
      if (found) used.add(found.path);
      out.push({
        ...fromDockerfile(service.name, found, context, service.build.target),
        from: `${path} service ${service.name}${found ? ` (${found.path})` : ''}`,
      });
    }
  }
  for (const found of detection.dockerfiles) {
    if (used.has(found.path)) continue;
    const roleTargets = found.facts.targets.filter((t) => (IMAGE_ROLES as readonly string[]).includes(t));
    if (roleTargets.length > 1) {
      for (const target of roleTargets)
        out.push({
          ...fromDockerfile(target, found, found.dir, target),
          from: `${found.path}, target ${target}`,
        });
      continue;
    }
    out.push({ ...fromDockerfile(nameOfDockerfile(found), found, found.dir, undefined), from: found.path });
  }
  for (const folder of detection.nodeFolders) {
    out.push({
      name: folder.dir,
      from: `${folder.dir}/ (a Node service, ${folder.entry}; no Dockerfile)`,
      recipe: {
        base: 'node',
        copies: [{ from: folder.dir, to: `/srv/${folder.dir}` }],
        entrypoint: ['/usr/local/bin/node', `/srv/${folder.dir}/${folder.entry}`],
        env: {},
        exposedPorts: [],
        user: '65534:65534',
      },
    });
  }
  const names = new Set<string>();
  for (const candidate of out) {
    let name = artifactName(candidate.name);
    for (let i = 2; names.has(name); i++) name = `${artifactName(candidate.name)}-${i}`;
    names.add(name);
    candidate.name = name;
  }
  for (const candidate of out) {
    plan.found.push(
      `${candidate.from}${candidate.docker?.target ? ` (target ${candidate.docker.target})` : ''}`,
    );
  }
  return out;
}

function fromDockerfile(
  name: string,
  found: FoundDockerfile | undefined,
  context: string,
  target: string | undefined,
): Omit<Candidate, 'from'> {
  const dockerfile = found?.path ?? join(context, 'Dockerfile');
  const candidate: Omit<Candidate, 'from'> = {
    name,
    docker: {
      context,
      ...(dockerfile !== join(context, 'Dockerfile') ? { dockerfile } : {}),
      ...(target ? { target } : {}),
    },
  };
  // A target other than the last stage is not what the recipe read; only the final stage translates.
  const lastTarget = found?.facts.targets.at(-1);
  const recipe = found?.facts.recipe;
  if (recipe && 'unsupported' in recipe) candidate.unsupported = recipe.unsupported;
  else if (recipe && (!target || target === lastTarget)) {
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
    }
  }
  // One image and no role matched: a single-image service is its API.
  if (candidates.length === 1 && !candidates[0]!.role) {
    candidates[0]!.role = 'api';
    plan.guessed.push(`artifacts.${candidates[0]!.name}: role api (the only image)`);
  }
}

function imageArtifact(
  candidate: Candidate,
  prefix: string,
  detection: Detection,
  plan: InitPlan,
): PlannedArtifact {
  const value: Record<string, unknown> = {};
  const notes = [`found: ${candidate.from}`];
  const at = `artifacts.${candidate.name}`;
  if (candidate.role && candidate.role !== candidate.name) value['role'] = candidate.role;
  value['image'] =
    candidate.name.startsWith(`${prefix}-`) || candidate.name === prefix
      ? candidate.name
      : `${prefix}-${candidate.name}`;
  plan.guessed.push(`${at}.image: "${String(value['image'])}"`);
  const script = detection.buildScripts.find((s) => s.artifact === candidate.name);
  const web = detection.webBuild;
  if (script) {
    value['build'] = { command: script.command };
    notes.push(`build: ${script.path} runs before the image is assembled`);
  } else if (candidate.role === 'web' && web) {
    value['build'] = {
      command: ['npm', 'run', ...(web.dir === '.' ? [] : ['--prefix', web.dir]), web.script],
    };
    notes.push(`build: the web build script "${web.script}" (${web.command})`);
    plan.guessed.push(`${at}.build: npm run ${web.script}`);
  }
  if (candidate.docker) {
    notes.push('docker engine: built from the Dockerfile in its context');
    Object.assign(value, candidate.docker);
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

function cliArtifact(detection: Detection, prefix: string, plan: InitPlan): PlannedArtifact {
  const script = detection.buildScripts.find((s) => s.artifact === 'cli');
  const python = detection.pythonClis[0];
  const node = detection.nodeBins[0];
  if (!script && !python && !node)
    return {
      name: 'cli',
      value: false,
      notes: ['no CLI found (package.json "bin", pyproject.toml scripts, scripts/build-cli.*)'],
    };
  const value: Record<string, unknown> = {};
  const notes: string[] = [];
  const archiveName = script?.archive
    ?.split('/')
    .pop()
    ?.replace(/\.(tar\.gz|tgz)$/, '');
  const pkg = archiveName ?? python?.project ?? node?.package ?? `${prefix}-cli`;
  value['package'] = pkg;
  if (python) {
    notes.push(`found: ${python.dir}/pyproject.toml, a Python CLI (${python.scripts.join(', ')})`);
    plan.found.push(
      `${python.dir === '.' ? '' : `${python.dir}/`}pyproject.toml: Python CLI ${python.scripts.join(', ')}`,
    );
    value['installCommand'] = 'pipx install --force {url}';
  } else if (node) {
    notes.push(`found: ${node.dir}/package.json bin ${node.bins.join(', ')}`);
    plan.found.push(`${node.dir === '.' ? '' : `${node.dir}/`}package.json: bin ${node.bins.join(', ')}`);
  }
  if (script?.archive) {
    value['build'] = { command: script.command, archive: script.archive };
    notes.push(`build: ${script.path} writes ${script.archive}`);
    plan.found.push(`${script.path}: builds the CLI archive ${script.archive}`);
  } else {
    // A build is needed whenever the API image is built (it serves the archive): the packaging
    // tool of the CLI's own language, renamed to one archive name the config can give.
    const archive = `dist/${repositoryName(pkg)}.tar.gz`;
    const command = python
      ? `python3 -m build --sdist --outdir dist/cli-build ${python.dir} && mv dist/cli-build/*.tar.gz ${archive} && rm -rf dist/cli-build`
      : `mkdir -p dist/cli-build && npm pack ${node!.dir === '.' ? '' : `./${node!.dir} `}--pack-destination dist/cli-build && mv dist/cli-build/*.tgz ${archive} && rm -rf dist/cli-build`;
    value['build'] = { command: ['sh', '-c', command], archive };
    notes.push(
      python
        ? 'build: guessed, an sdist by python -m build (pip install build); stamp SERVICE_VERSION into its version'
        : 'build: guessed, the package by npm pack; stamp SERVICE_VERSION into its version',
    );
    plan.guessed.push(
      `artifacts.cli.build: ${python ? 'python3 -m build --sdist' : 'npm pack'}, renamed to ${archive}`,
    );
    plan.todo.push('artifacts.cli.build: bake the release version (SERVICE_VERSION) into the CLI it builds');
  }
  if (!archiveName) plan.guessed.push(`artifacts.cli.package: "${pkg}"`);
  return { name: 'cli', value, notes };
}

function nameOfDockerfile(found: FoundDockerfile): string {
  const file = found.path.split('/').pop()!;
  const suffix = /^Dockerfile\.(.+)$/.exec(file)?.[1] ?? /^(.+)\.Dockerfile$/.exec(file)?.[1];
  if (suffix) return suffix;
  return found.dir === '.' ? 'app' : found.dir.split('/').pop()!;
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

/** A repository path component for image names. */
export function repositoryName(raw: string): string {
  const name = raw
    .replace(/^@.*\//, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return REPOSITORY.test(name) ? name : 'service';
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
