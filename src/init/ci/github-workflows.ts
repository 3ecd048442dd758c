import { type DockerCommand, dockerCommandsOf } from './docker-commands.ts';
import { metadataTags, splitOutsideExpressions } from './metadata-tags.ts';
import { readYaml, record, scalar, strings } from './read-yaml.ts';

/**
 * What a repository's GitHub workflows already release: each workflow's triggers and the image
 * builds of its steps (`docker/build-push-action`, `docker/bake-action` and the `docker build` /
 * `docker buildx build` / `docker buildx bake` commands of `run:` lines), with matrices expanded
 * where their values are written out, `${{ matrix.* }}`, `${{ env.* }}` and `${{ inputs.* }}`
 * replaced where known, and a local reusable workflow's builds read with the inputs its caller
 * gives. Whether each build pushes, its version tags and whether it moves `latest` (its own
 * `tags:` or a `docker/metadata-action` step's rules). Pure: paths and texts in, data out; every
 * file read with the bounds of read-yaml.ts, matrices capped at MAX_COMBINATIONS.
 */
export interface WorkflowTriggers {
  /** `on.push.tags` patterns as written (`v*`, `*.*.*`). */
  tags: string[];
  tagsIgnore: string[];
  /** `on.push.branches` as written. */
  branches: string[];
  /** `on.release.types` (`['published']`); `[]` for `release` with no types; absent without it. */
  release?: string[];
  /** Every event it runs on, by name (`push`, `release`, `workflow_dispatch`, `workflow_call`, …). */
  events: string[];
}

export type BuildTool =
  | 'build-push-action'
  | 'bake-action'
  | 'docker build'
  | 'docker buildx build'
  | 'docker buildx bake';

export interface WorkflowBuild {
  /** `<workflow path> job <id> step <name or number>` (and the matrix values): for "found" lines. */
  at: string;
  job: string;
  tool: BuildTool;
  /** The build context as written (relative to the repository's top), when given. */
  context?: string;
  /** The Dockerfile as written (`file:` / `-f`), relative to the top for the actions. */
  file?: string;
  target?: string;
  buildArgs: Record<string, string>;
  platforms: string[];
  /** The image references it tags, as written after substitution (`ghcr.io/a/b:latest`). */
  tags: string[];
  /** The image repositories it names (tags without the tag; a metadata step's `images:`). */
  images: string[];
  /** `push: true`, `--push`, a `docker push` of its tag later in the job; `conditional` for an expression. */
  push: boolean | 'conditional';
  /** Tags named for the release's version (`type=semver`, `:${{ github.ref_name }}`, …). */
  pushesVersion: boolean;
  /** It moves `latest` (its own `:latest` tag or the metadata rules). */
  pushesLatest: boolean;
  /** The condition `latest` is under, as written, when there is one. */
  latestWhen?: string;
  /** The metadata-action rules that made its tags, one a line. */
  tagRules?: string[];
  /** The matrix combination this build is of. */
  matrix?: Record<string, string>;
  /** bake: its files and targets (`docker-bake.hcl` and the group or targets built). */
  bake?: { files: string[]; targets: string[]; set: string[] };
  /** Set when the step is in a local reusable workflow this job calls: that workflow's path. */
  via?: string;
}

export interface WorkflowRead {
  path: string;
  name?: string;
  triggers: WorkflowTriggers;
  builds: WorkflowBuild[];
  /** References its `docker push`, `docker manifest push` and `imagetools create -t` lines push. */
  pushed: string[];
  /** Some build or push of it moves `latest` (always or under a condition). */
  movesLatest: boolean;
  /** Why it could not be read (not YAML, an alias bomb, too large). */
  unreadable?: string;
}

const MAX_COMBINATIONS = 256;
const MAX_DEPTH = 3;
// Expressions that stand for the release's version in a tag: the git tag and its parts.
const VERSION_EXPR =
  /github\.ref_name|github\.ref\b|steps\.[\w-]+\.outputs\.(?:version|tag)|inputs\.(?:version|tag)|env\.(?:VERSION|TAG|RELEASE_VERSION|IMAGE_TAG)\b|GITHUB_REF|release\.tag_name/i;

interface Raw {
  path: string;
  data?: Record<string, unknown>;
  unreadable?: string;
}

/** Every workflow of `.github/workflows/` (paths as the listing has them), local calls resolved. */
export function readGithubWorkflows(files: readonly { path: string; text: string }[]): WorkflowRead[] {
  const raws: Raw[] = files.map(({ path, text }) => {
    const read = readYaml(text);
    if ('unreadable' in read) return { path, unreadable: read.unreadable };
    const data = record(read.data);
    return data ? { path, data } : { path, unreadable: 'not a map of keys' };
  });
  return raws.map((raw) => {
    if (!raw.data) return unreadableWorkflow(raw.path, raw.unreadable!);
    const name = scalar(raw.data['name']);
    const { builds, pushed } = buildsOf(raw, raws, {}, 0);
    return {
      path: raw.path,
      ...(name ? { name } : {}),
      triggers: triggersOf(raw.data['on']),
      builds,
      pushed,
      movesLatest: builds.some((b) => b.pushesLatest) || pushed.some((r) => tagOf(r) === 'latest'),
    };
  });
}

/** A workflow init could not read, and why: no trigger, no build. */
export function unreadableWorkflow(path: string, why: string): WorkflowRead {
  return { path, triggers: emptyTriggers(), builds: [], pushed: [], movesLatest: false, unreadable: why };
}

/** One workflow alone (a call to another workflow is not followed). */
export function readGithubWorkflow(path: string, text: string): WorkflowRead {
  return readGithubWorkflows([{ path, text }])[0]!;
}

function emptyTriggers(): WorkflowTriggers {
  return { tags: [], tagsIgnore: [], branches: [], events: [] };
}

function triggersOf(on: unknown): WorkflowTriggers {
  const out = emptyTriggers();
  if (typeof on === 'string') out.events.push(on);
  else if (Array.isArray(on)) out.events.push(...strings(on));
  else if (record(on)) {
    const map = record(on)!;
    out.events.push(...Object.keys(map));
    const push = record(map['push']);
    if (push) {
      out.tags.push(...strings(push['tags']));
      out.tagsIgnore.push(...strings(push['tags-ignore']));
      out.branches.push(...strings(push['branches']));
    }
  }
  if (out.events.includes('release')) {
    const release = record(record(on)?.['release']);
    out.release = strings(release?.['types']);
  }
  return out;
}

interface Scope {
  env: Record<string, string>;
  /** Undefined when the matrix is an expression: its values are not known. */
  matrix: Record<string, string> | undefined;
  inputs: Record<string, string>;
}

function buildsOf(
  raw: Raw,
  all: readonly Raw[],
  inputs: Record<string, string>,
  depth: number,
): { builds: WorkflowBuild[]; pushed: string[] } {
  const data = raw.data!;
  const out: WorkflowBuild[] = [];
  const pushed: string[] = [];
  const workflowDir = workingDirectoryOf(data);
  const workflowEnv = literalEnv(data['env'], { env: {}, matrix: undefined, inputs });
  // A reusable workflow's inputs default to what its `on.workflow_call.inputs` say.
  const defaults = record(record(record(data['on'])?.['workflow_call'])?.['inputs']) ?? {};
  const withDefaults = { ...inputs };
  for (const [key, spec] of Object.entries(defaults)) {
    const value = scalar(record(spec)?.['default']);
    if (!(key in withDefaults) && value !== undefined) withDefaults[key] = value;
  }
  for (const [jobId, rawJob] of Object.entries(record(data['jobs']) ?? {})) {
    const job = record(rawJob);
    if (!job) continue;
    const combinations = matrixCombinations(job['strategy']);
    for (const matrix of combinations ?? [{}]) {
      const scope: Scope = {
        env: { ...workflowEnv },
        matrix: combinations ? matrix : undefined,
        inputs: withDefaults,
      };
      Object.assign(scope.env, literalEnv(job['env'], scope));
      const label = Object.keys(matrix).length
        ? ` (matrix ${Object.entries(matrix)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')})`
        : '';
      const uses = scalar(job['uses']);
      if (uses?.startsWith('./') && depth < MAX_DEPTH) {
        // A local reusable workflow: its builds, with the inputs this job gives it.
        const callee = all.find((r) => r.path === uses.slice(2).replace(/@.*$/, ''));
        if (callee?.data) {
          const given: Record<string, string> = {};
          for (const [key, value] of Object.entries(record(job['with']) ?? {})) {
            const text = scalar(value);
            if (text !== undefined) given[key] = substitute(text, scope);
          }
          const called = buildsOf(callee, all, given, depth + 1);
          pushed.push(...called.pushed);
          for (const build of called.builds)
            out.push({
              ...build,
              at: `${raw.path} job ${jobId}${label} -> ${build.at}`,
              ...(Object.keys(matrix).length ? { matrix } : {}),
              via: build.via ?? callee.path,
            });
        }
        continue;
      }
      const steps = stepsBuilds(raw.path, jobId, label, strings2(job['steps']), scope, matrix, {
        dir: workingDirectoryOf(job) ?? workflowDir,
      });
      out.push(...steps.builds);
      pushed.push(...steps.pushed);
    }
  }
  // A reference a `docker push` or `imagetools create` names, in any job (a build pushed by
  // digest, then tagged by a manifest job): that build pushes, and those tags are its.
  for (const build of out) {
    const pushes = pushed.filter((r) => build.tags.includes(r) || build.images.includes(repositoryOf(r)));
    if (!pushes.length) continue;
    if (build.push === false) build.push = true;
    for (const ref of pushes) {
      const tag = tagOf(ref);
      if (tag === 'latest') build.pushesLatest = true;
      else if (tag && isVersionTag(tag)) build.pushesVersion = true;
    }
  }
  // A step the matrix does not change is one build, however many combinations run it.
  const seen = new Set<string>();
  const builds = out.filter((build) => {
    const { at: _at, matrix: _matrix, ...rest } = build;
    const key = JSON.stringify(rest);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { builds, pushed: [...new Set(pushed)] };
}

/** `defaults.run.working-directory` of a workflow or a job: where its `run:` lines start. */
function workingDirectoryOf(node: Record<string, unknown>): string | undefined {
  return scalar(record(record(node['defaults'])?.['run'])?.['working-directory']);
}

function strings2(steps: unknown): Record<string, unknown>[] {
  return Array.isArray(steps)
    ? steps.map(record).filter((s): s is Record<string, unknown> => s !== undefined)
    : [];
}

function stepsBuilds(
  path: string,
  jobId: string,
  label: string,
  steps: Record<string, unknown>[],
  jobScope: Scope,
  matrix: Record<string, string>,
  defaults: { dir: string | undefined },
): { builds: WorkflowBuild[]; pushed: string[] } {
  const out: WorkflowBuild[] = [];
  const metadata = new Map<string, ReturnType<typeof metadataTags>>();
  const pushed: string[] = [];
  steps.forEach((step, index) => {
    const scope: Scope = { ...jobScope, env: { ...jobScope.env, ...literalEnv(step['env'], jobScope) } };
    const at = `${path} job ${jobId}${label} step ${scalar(step['name']) ?? scalar(step['id']) ?? `#${index + 1}`}`;
    const uses = scalar(step['uses']) ?? '';
    const action = uses.replace(/@.*$/, '');
    // An input that evaluates to nothing (`${{ matrix.target }}` of a combination without one) is not given.
    const input = (key: string): string | undefined => {
      const value = scalar(record(step['with'])?.[key]);
      const text = value === undefined ? undefined : substitute(value, scope).trim();
      return text ? text : undefined;
    };
    const base = { at, job: jobId, ...(Object.keys(matrix).length ? { matrix } : {}) };
    if (/^(?:docker|crazy-max)\/(?:metadata-action|ghaction-docker-meta)$/.test(action)) {
      const id = scalar(step['id']);
      if (id)
        metadata.set(
          id,
          metadataTags({ images: input('images'), tags: input('tags'), flavor: input('flavor') }),
        );
    } else if (/^(?:docker|depot)\/build-push-action$/.test(action)) {
      const build: WorkflowBuild = {
        ...base,
        tool: 'build-push-action',
        buildArgs: keyValues(input('build-args')),
        platforms: list(input('platforms')),
        // Expressions written without spaces, as a run line's are: one spelling to compare.
        tags: list(input('tags')).map(compactExpressions),
        images: [],
        push: pushOf(input('push'), input('outputs')),
        pushesVersion: false,
        pushesLatest: false,
      };
      // Without `context:` the action builds the git context of the commit: the top of the repository.
      const context = input('context');
      if (context !== undefined) build.context = context;
      const file = input('file');
      if (file !== undefined) build.file = file;
      const target = input('target');
      if (target !== undefined) build.target = target;
      tagFacts(build, scalar(record(step['with'])?.['tags']) ?? '', metadata);
      out.push(build);
    } else if (/^(?:docker|depot)\/bake-action(?:\/subaction\/[\w-]+)?$/.test(action)) {
      const rawFiles = scalar(record(step['with'])?.['files']) ?? '';
      const build: WorkflowBuild = {
        ...base,
        tool: 'bake-action',
        buildArgs: {},
        platforms: [],
        tags: [],
        images: [],
        push: pushOf(input('push'), undefined),
        pushesVersion: false,
        pushesLatest: false,
        bake: {
          files: list(input('files')).filter((f) => !f.includes('${{')),
          targets: list(input('targets')),
          set: list(input('set')),
        },
      };
      // A metadata step's bake file among `files:` gives its tags to the targets it names.
      tagFacts(build, rawFiles, metadata);
      out.push(build);
    } else if (typeof step['run'] === 'string') {
      // Expressions left (`${{ github.ref_name }}`) made one word each, as the runner's text is.
      const script = compactExpressions(substitute(step['run'], scope));
      const found = dockerCommandsOf(script, scope.env);
      pushed.push(...found.pushed);
      // `docker build .` in a step with `working-directory: apps/x` builds apps/x (and -f is
      // read from there too).
      const dir = scalar(step['working-directory']) ?? defaults.dir;
      for (const command of found.builds) {
        if (dir) {
          if (command.context !== undefined && !/^[a-z]+:\/\/|^-$/.test(command.context))
            command.context = underDir(dir, command.context);
          if (command.file !== undefined && !command.file.startsWith('/') && command.file !== '-')
            command.file = underDir(dir, command.file);
        }
        out.push(fromCommand(base, command, step['run'], metadata));
      }
    }
  });
  return { builds: out, pushed };
}

function underDir(dir: string, path: string): string {
  if (path.startsWith('/')) return path;
  const d = dir.replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (!d || d === '.') return path;
  const p = path.replace(/^\.\/+/, '');
  return p === '.' || p === '' ? d : `${d}/${p}`;
}

function tagOf(reference: string): string | undefined {
  const repository = repositoryOf(reference);
  return reference.length > repository.length + 1 && reference[repository.length] === ':'
    ? reference.slice(repository.length + 1)
    : undefined;
}

function isVersionTag(tag: string): boolean {
  return (
    VERSION_EXPR.test(tag) || /^v?\d+\.\d+/.test(tag) || /\$\{?(?:VERSION|TAG|RELEASE_VERSION)\}?/.test(tag)
  );
}

function fromCommand(
  base: Pick<WorkflowBuild, 'at' | 'job' | 'matrix'>,
  command: DockerCommand,
  rawScript: string,
  metadata: Map<string, ReturnType<typeof metadataTags>>,
): WorkflowBuild {
  const build: WorkflowBuild = {
    ...base,
    tool: command.tool,
    buildArgs: command.buildArgs,
    platforms: command.platforms,
    tags: command.tags,
    images: [],
    push: command.push,
    pushesVersion: false,
    pushesLatest: false,
    ...(command.context !== undefined ? { context: command.context } : {}),
    ...(command.file !== undefined ? { file: command.file } : {}),
    ...(command.target !== undefined ? { target: command.target } : {}),
    ...(command.bake ? { bake: command.bake } : {}),
  };
  // The raw script keeps `${{ steps.meta.outputs.tags }}` a substitution would not know.
  tagFacts(
    build,
    rawScript.includes('outputs.tags') || rawScript.includes('outputs.bake-file') ? rawScript : '',
    metadata,
  );
  return build;
}

/** Version and latest tags: from the build's own tags, or the metadata step its raw `tags:` names. */
function tagFacts(
  build: WorkflowBuild,
  rawTags: string,
  metadata: Map<string, ReturnType<typeof metadataTags>>,
): void {
  for (const tag of build.tags) {
    const repository = repositoryOf(tag);
    if (!build.images.includes(repository)) build.images.push(repository);
    const tagPart = tag.slice(repository.length + 1);
    if (tagPart === 'latest') build.pushesLatest = true;
    else if (tagPart && isVersionTag(tagPart)) build.pushesVersion = true;
  }
  // `${{ steps.meta.outputs.tags }}`, `…outputs.bake-file`: the rules of that step.
  for (const match of rawTags.matchAll(/steps\.([\w-]{1,100})\.outputs\.(?:tags|bake-file|json)/g)) {
    const meta = metadata.get(match[1]!);
    if (!meta) continue;
    build.tags = build.tags.filter((t) => !t.includes(match[0]));
    build.images = build.images.filter((t) => !t.includes(match[0]));
    for (const image of meta.images.map(compactExpressions))
      if (!build.images.includes(image)) build.images.push(image);
    build.pushesVersion ||= meta.version;
    build.pushesLatest ||= meta.latest;
    if (meta.latestWhen) build.latestWhen = meta.latestWhen;
    build.tagRules = meta.rules;
  }
}

/** `${{ a.b }}` written `${{a.b}}`: no whitespace inside, so a shell splitter keeps it one word. */
function compactExpressions(text: string): string {
  if (!text.includes('${{')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('${{', i);
    if (open < 0) return out + text.slice(i);
    const close = text.indexOf('}}', open + 3);
    if (close < 0) return out + text.slice(open);
    out += text.slice(i, open);
    out += `\${{${text.slice(open + 3, close).replace(/\s+/g, '')}}}`;
    i = close + 2;
  }
  return out;
}

/** `ghcr.io/a/b:tag` -> `ghcr.io/a/b` (a port's colon is before the last slash, kept). */
export function repositoryOf(reference: string): string {
  const at = reference.indexOf('@');
  const ref = at < 0 ? reference : reference.slice(0, at);
  // A tag made of an expression (`:${{ github.ref_name }}`): cut at the colon before it.
  const expr = ref.search(/:\$\{\{/);
  if (expr >= 0) return ref.slice(0, expr);
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? ref.slice(0, colon) : ref;
}

function pushOf(push: string | undefined, outputs: string | undefined): boolean | 'conditional' {
  if (outputs && /type=registry|push=true/.test(outputs)) return true;
  if (push === undefined) return false;
  const value = push.trim();
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  return value.includes('${{') ? 'conditional' : false;
}

/** An action input list: one item a line, or comma-separated (as the docker actions read it). */
function list(text: string | undefined): string[] {
  if (!text) return [];
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .flatMap((l) => splitOutsideExpressions(l, ','));
}

/** `build-args: | A=1\n B=2` as a map (one per line; build-push-action does not split on commas). */
function keyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of (text ?? '').split('\n')) {
    const item = line.trim();
    if (!item || item.startsWith('#')) continue;
    const eq = item.indexOf('=');
    if (eq < 0) out[item] = '';
    else out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

function literalEnv(raw: unknown, scope: Scope): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record(raw) ?? {})) {
    const text = scalar(value);
    if (text !== undefined) out[key] = substitute(text, { ...scope, env: { ...scope.env, ...out } });
  }
  return out;
}

/**
 * `${{ matrix.x }}`, `${{ env.X }}`, `${{ inputs.x }}` (and `github.event.inputs.x`) replaced where
 * the scope knows them; every other expression kept as written. One pass over the text.
 */
export function substitute(text: string, scope: Scope): string {
  if (!text.includes('${{')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('${{', i);
    if (open < 0) return out + text.slice(i);
    const close = text.indexOf('}}', open + 3);
    if (close < 0) return out + text.slice(open);
    out += text.slice(i, open);
    const expr = text.slice(open + 3, close).trim();
    out += evaluate(expr, scope) ?? text.slice(open, close + 2);
    i = close + 2;
  }
  return out;
}

function evaluate(expr: string, scope: Scope): string | undefined {
  if (expr.length > 200) return undefined;
  // `a || 'default'`: the first operand that is not empty (GitHub's `||` on strings).
  const parts = expr.split('||').map((p) => p.trim());
  if (parts.length > 4) return undefined;
  for (const part of parts) {
    const value = /^'[^']*'$/.test(part) ? part.slice(1, -1) : referenceOf(part, scope);
    if (value === undefined) return undefined;
    if (value !== '') return value;
  }
  return '';
}

function referenceOf(expr: string, scope: Scope): string | undefined {
  const dot = expr.indexOf('.');
  if (dot < 0) return undefined;
  const head = expr.slice(0, dot);
  const key = expr.slice(dot + 1);
  if (!/^[\w-]+(?:\.[\w-]+)?$/.test(key)) return undefined;
  const from = (map: Record<string, string>, name: string) =>
    Object.hasOwn(map, name) ? map[name] : undefined;
  // A key the written-out matrix lacks is empty, as GitHub evaluates it.
  if (head === 'matrix') return scope.matrix ? (from(scope.matrix, key) ?? '') : undefined;
  if (head === 'env') return from(scope.env, key);
  if (head === 'inputs') return from(scope.inputs, key);
  if (expr.startsWith('github.event.inputs.'))
    return from(scope.inputs, expr.slice('github.event.inputs.'.length));
  return undefined;
}

/**
 * The combinations of a job's `strategy.matrix` as GitHub makes them: the product of its lists,
 * `exclude` removed, each `include` extending the combinations it matches or added on its own.
 * A matrix given by an expression (`fromJSON(…)`) cannot be expanded: one empty combination, its
 * `${{ matrix.* }}` left as written.
 */
function matrixCombinations(strategy: unknown): Record<string, string>[] | undefined {
  const raw = record(strategy)?.['matrix'];
  if (raw === undefined) return [{}];
  const matrix = record(raw);
  if (!matrix) return undefined;
  let combos: Record<string, string>[] = [{}];
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(matrix)) {
    if (key === 'include' || key === 'exclude') continue;
    if (!Array.isArray(value)) return undefined;
    const values = value.map((v) => flatten(key, v)).filter((v) => Object.keys(v).length > 0);
    if (!values.length) continue;
    for (const v of values) for (const k of Object.keys(v)) keys.add(k);
    const next: Record<string, string>[] = [];
    for (const combo of combos)
      for (const v of values) {
        if (next.length >= MAX_COMBINATIONS) break;
        next.push({ ...combo, ...v });
      }
    combos = next;
  }
  const entriesOf = (list: unknown) =>
    (Array.isArray(list) ? list : []).map((item) => {
      const map = record(item) ?? {};
      return Object.assign({}, ...Object.entries(map).map(([k, v]) => flatten(k, v))) as Record<
        string,
        string
      >;
    });
  const excluded = entriesOf(matrix['exclude']);
  combos = combos.filter((c) => !excluded.some((e) => Object.entries(e).every(([k, v]) => c[k] === v)));
  if (!keys.size) combos = [];
  for (const include of entriesOf(matrix['include'])) {
    // Added to every combination whose original values it does not change; else one of its own.
    const entries = Object.entries(include);
    const matching = combos.filter((c) => entries.every(([k, v]) => !keys.has(k) || c[k] === v));
    if (keys.size && matching.length) for (const c of matching) Object.assign(c, include);
    else if (combos.length < MAX_COMBINATIONS) combos.push({ ...include });
  }
  return combos.length ? combos : [{}];
}

/** A matrix value as `${{ matrix.<key> }}` reads it: a scalar, or a map's scalars as `key.sub`. */
function flatten(key: string, value: unknown): Record<string, string> {
  const text = scalar(value);
  if (text !== undefined) return { [key]: text };
  const map = record(value);
  if (!map) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    const inner = scalar(v);
    if (inner !== undefined) out[`${key}.${k}`] = inner;
  }
  return out;
}
