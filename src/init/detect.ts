import { type BakeRead, readBakeFile } from './ci/docker-bake.ts';
import { readGithubWorkflows, unreadableWorkflow, type WorkflowRead } from './ci/github-workflows.ts';
import { type GitlabRead, readGitlabCi } from './ci/gitlab-ci.ts';
import { type GoreleaserRead, readGoreleaser } from './ci/goreleaser.ts';
import { type ComposeService, readComposeFile } from './compose-file.ts';
import { inDevFolder } from './dev-paths.ts';
import { type DockerfileFacts, readDockerfile } from './dockerfile.ts';
import { isDockerfile } from './dockerfile-name.ts';

/**
 * What `release init` finds in a repository. Pure: a function of the file listing and of the
 * contents `read` returns, so each rule is tested on a listing without a disk.
 */
export interface ProjectFiles {
  /** Paths relative to the project, `/`-separated (node_modules, .git and build output left out). */
  paths: readonly string[];
  read(path: string): string | undefined;
  /** Whether a file or folder of the listing is at this path. */
  exists?(path: string): boolean;
}

export interface FoundDockerfile {
  path: string;
  /** Its folder: the build context unless a compose file says otherwise. */
  dir: string;
  facts: DockerfileFacts;
}

export interface FoundScript {
  /** `scripts/build-<artifact>.<ext>`: the artifact it builds, by its name. */
  artifact: string;
  path: string;
  command: string[];
  /** For the CLI: the archive the script writes, when its text names one (`dist/x.tar.gz`). */
  archive?: string;
}

export interface Detection {
  /** The project's name, for image names: package.json, pyproject.toml, else undefined. */
  name?: string;
  dockerfiles: FoundDockerfile[];
  /** Every compose file at the top (and those named), read or with why it could not be. */
  compose: FoundCompose[];
  /** `bin` entries of package.json files (a Node CLI). */
  nodeBins: { dir: string; package: string; bins: string[]; version?: string }[];
  /** A web client build among package.json scripts. */
  webBuild?: { dir: string; script: string; command: string };
  /** A script whose name says it builds the CLI (`scripts/*cli*`, `api/scripts/build_cli.sh`). */
  cliScripts: string[];
  /** `[project.scripts]` (or Poetry's) of a pyproject.toml: a Python CLI. */
  pythonClis: { dir: string; project: string; scripts: string[]; version?: string }[];
  /** Go mains under `cmd/<name>/` whose name says CLI (`cmd/acme-cli`): a Go CLI. */
  goClis: { dir: string; name: string }[];
  buildScripts: FoundScript[];
  /**
   * Top-level folders with a Node entry file and no Dockerfile: images the oci engine can build.
   * `entry` is relative to the folder (`dist/server.mjs` when a build script bundles it there).
   */
  nodeFolders: { dir: string; entry: string }[];
  ci?: 'github' | 'gitlab';
  /** The repository's own GitHub workflows: their triggers and the images they build. */
  workflows: WorkflowRead[];
  /** `.goreleaser.yaml` files: Go builds (a CLI's binary name) and the images they push. */
  goreleaser: GoreleaserRead[];
  /** `docker-bake.hcl` / `docker-bake.json` files: their targets and groups. */
  bake: BakeRead[];
  /** `.gitlab-ci.yml`: the images its jobs build. */
  gitlab: GitlabRead[];
}

export interface FoundCompose {
  path: string;
  services: ComposeService[];
  /** Why it could not be read (not YAML, too many aliases, too large). */
  unreadable?: string;
}

// Patterns below run on one path or one token at a time, anchored: linear in what they read.
const WORKFLOW = /^\.github\/workflows\/[^/]+\.ya?ml$/;
// `cmd/acme-cli/main.go`, `cmd/cli/main.go` (and one folder down, `server/cmd/acmectl/…` not: `cli` as a word).
const GO_CLI_MAIN = /^(?:[\w.-]+\/)?cmd\/((?:[\w.-]*[-_])?cli(?:[-_][\w.-]*)?)\/main\.go$/;
const BAKE = /(?:^|\/)docker-bake(?:\.[\w-]+)?\.(?:hcl|json)$/;
const GORELEASER = /(?:^|\/)\.?goreleaser\.ya?ml$/;
const COMPOSE = /^(?:docker-)?compose[\w.-]*\.ya?ml$/;
const BUILD_SCRIPT = /^scripts\/build-([a-z][a-z0-9-]*)\.(mjs|js|cjs|sh)$/;
// `cli` as a word of the name (build_cli.sh, cli-build.mjs), not inside one (client).
const CLI_SCRIPT = /(?:^|\/)scripts\/(?:[\w.-]*[-_.])?cli(?:[-_.][\w.-]*)?\.(?:sh|py|mjs|js)$/;
const ARCHIVE = /^(?:dist|build|out)\/[\w.@/-]+\.(?:tar\.gz|tgz)$/;
const NODE_ENTRIES = ['server.mjs', 'main.mjs', 'index.mjs', 'server.js', 'main.js', 'index.js'];
const WEB_TOOLS = /\b(vite|webpack|next|react-scripts|parcel|astro|ng|nuxt|svelte-kit|rollup|esbuild)\b/;

/**
 * `named`: compose files the user named (`--compose-file`), read wherever they are; otherwise the
 * compose files at the top of the repository.
 */
export function detectProject(files: ProjectFiles, named: readonly string[] = []): Detection {
  const paths = [...files.paths].sort();
  const detection: Detection = {
    dockerfiles: [],
    compose: [],
    nodeBins: [],
    pythonClis: [],
    goClis: [],
    buildScripts: [],
    cliScripts: [],
    nodeFolders: [],
    workflows: [],
    goreleaser: [],
    bake: [],
    gitlab: [],
  };
  const workflowFiles: { path: string; text: string }[] = [];
  for (const path of paths) {
    if (GORELEASER.test(path) && !inDevFolder(path)) {
      const text = files.read(path);
      if (text !== undefined) detection.goreleaser.push(readGoreleaser(path, text));
    }
    if (BAKE.test(path) && !inDevFolder(path)) {
      const text = files.read(path);
      if (text !== undefined) detection.bake.push(readBakeFile(path, text));
    }
    if (path === '.gitlab-ci.yml' || (path.startsWith('.gitlab/') && path.endsWith('.gitlab-ci.yml'))) {
      const text = files.read(path);
      if (text !== undefined) detection.gitlab.push(readGitlabCi(path, text));
    }
    if (WORKFLOW.test(path)) {
      const text = files.read(path);
      if (text !== undefined) workflowFiles.push({ path, text });
      else detection.workflows.push(unreadableWorkflow(path, 'too large or unreadable'));
    }
    if (isDockerfile(path)) {
      const text = files.read(path);
      if (text !== undefined)
        detection.dockerfiles.push({ path, dir: dirOf(path), facts: readDockerfile(text) });
    } else if (COMPOSE.test(path) || named.includes(path)) {
      const text = files.read(path);
      const read = text === undefined ? { unreadable: 'too large or unreadable' } : readComposeFile(text);
      detection.compose.push({ path, ...('services' in read ? read : { services: [], ...read }) });
    } else if (path === 'package.json' || path.endsWith('/package.json')) {
      readPackageJson(path, files.read(path), detection);
    } else if (path === 'pyproject.toml' || path.endsWith('/pyproject.toml')) {
      readPyproject(path, files.read(path) ?? '', detection);
    }
    const go = GO_CLI_MAIN.exec(path);
    if (go && !inDevFolder(path)) detection.goClis.push({ dir: dirOf(path), name: go[1]! });
    if (CLI_SCRIPT.test(path) && !BUILD_SCRIPT.test(path) && !inDevFolder(path))
      detection.cliScripts.push(path);
    const script = BUILD_SCRIPT.exec(path);
    if (script) {
      const [, artifact, ext] = script;
      const text = files.read(path) ?? '';
      const archive = archiveNamedIn(text);
      detection.buildScripts.push({
        artifact: artifact!,
        path,
        command: [ext === 'sh' ? 'sh' : 'node', path],
        ...(archive ? { archive } : {}),
      });
    }
  }
  const dockerDirs = new Set(detection.dockerfiles.map((d) => d.dir));
  const topDirs = new Set(paths.filter((p) => p.includes('/')).map((p) => p.split('/')[0]!));
  for (const dir of topDirs) {
    if (dockerDirs.has(dir) || ['scripts', 'test', 'tests', 'docs', 'src', 'cli'].includes(dir)) continue;
    const entry = NODE_ENTRIES.find((name) => paths.includes(`${dir}/${name}`));
    if (!entry) continue;
    // A build script that bundles the entry into <dir>/dist/ (dependencies included): run that.
    const script = detection.buildScripts.find((s) => s.artifact === dir);
    const bundled = script && (files.read(script.path) ?? '').includes(`${dir}/dist/${entry}`);
    detection.nodeFolders.push({ dir, entry: bundled ? `dist/${entry}` : entry });
  }
  detection.workflows.push(...readGithubWorkflows(workflowFiles));
  if (paths.some((p) => p.startsWith('.github/'))) detection.ci = 'github';
  else if (paths.includes('.gitlab-ci.yml')) detection.ci = 'gitlab';
  return detection;
}

function readPackageJson(path: string, text: string | undefined, detection: Detection): void {
  let pkg: { name?: unknown; bin?: unknown; scripts?: unknown; version?: unknown };
  try {
    pkg = JSON.parse(text ?? '') as typeof pkg;
  } catch {
    return;
  }
  const dir = dirOf(path);
  const name = typeof pkg.name === 'string' ? pkg.name : undefined;
  if (dir === '.' && name) {
    const project = projectOfRootPackage(name);
    if (project) detection.name ??= project;
  }
  // An example's or a test's package is never the service's CLI.
  const version = typeof pkg.version === 'string' ? { version: pkg.version } : {};
  if (!inDevFolder(path)) {
    if (typeof pkg.bin === 'string' && name)
      detection.nodeBins.push({ dir, package: name, bins: [name.replace(/^@.*\//, '')], ...version });
    else if (pkg.bin && typeof pkg.bin === 'object' && name)
      detection.nodeBins.push({ dir, package: name, bins: Object.keys(pkg.bin), ...version });
  }
  if (pkg.scripts && typeof pkg.scripts === 'object' && !detection.webBuild) {
    const scripts = Object.entries(pkg.scripts as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
    // A script named for the web build first, then a build script that runs a web bundler.
    const web =
      scripts.find(([key]) => /^(build:web|web:build|build:client|build:frontend)$/.test(key)) ??
      scripts.find(([key, command]) => /^build/.test(key) && WEB_TOOLS.test(command));
    if (web) detection.webBuild = { dir, script: web[0], command: web[1] };
  }
}

// What a workspace's root package is called when its name says nothing of the project.
const ROOT_PACKAGE = /^(?:root|monorepo|workspace|workspaces|repo|main|project|app)$/i;

/**
 * The project a root package.json names: `@karakeep/root` is karakeep (its scope), a bare `root`
 * or `monorepo` says nothing (the folder's name is taken instead).
 */
function projectOfRootPackage(name: string): string | undefined {
  const scoped = /^@([^/]+)\/(.+)$/.exec(name);
  const bare = scoped ? scoped[2]! : name;
  if (!ROOT_PACKAGE.test(bare)) return name;
  return scoped ? scoped[1] : undefined;
}

/** The first `dist/<x>.tar.gz` (or build/, out/, .tgz) a script names, token by token. */
function archiveNamedIn(text: string): string | undefined {
  for (const token of text.split(/[\s"'`(),;=]+/)) if (ARCHIVE.test(token)) return token;
  return undefined;
}

/**
 * `name` of `[project]` (or `[tool.poetry]`) and the keys of its scripts table, line by line (a
 * TOML subset: enough for these keys, and linear).
 */
function readPyproject(path: string, text: string, detection: Detection): void {
  let section = '';
  let project: string | undefined;
  let version: string | undefined;
  const scripts: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      section = line.slice(1, line.indexOf(']') < 0 ? undefined : line.indexOf(']')).trim();
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line
      .slice(0, eq)
      .trim()
      .replace(/^["']|["']$/g, '');
    const value = line.slice(eq + 1).trim();
    if ((section === 'project' || section === 'tool.poetry') && key === 'name' && !project)
      project = value.replace(/^["']|["']$/g, '') || undefined;
    if ((section === 'project' || section === 'tool.poetry') && key === 'version' && !version)
      version = value.replace(/^["']|["']$/g, '') || undefined;
    if ((section === 'project.scripts' || section === 'tool.poetry.scripts') && /^[\w.-]+$/.test(key))
      scripts.push(key);
  }
  if (!project) return;
  if (dirOf(path) === '.') detection.name ??= project;
  if (scripts.length && !inDevFolder(path))
    detection.pythonClis.push({ dir: dirOf(path), project, scripts, ...(version ? { version } : {}) });
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '.' : path.slice(0, slash);
}
