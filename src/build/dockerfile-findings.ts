import type { DockerfileInstruction, DockerfileStage, ParsedDockerfile } from './dockerfile-stages.ts';

/** The build arg the docker engine sets to the base it loaded (`FROM ${BASE_IMAGE}`). */
export const BASE_IMAGE_ARG = 'BASE_IMAGE';

/** The platform args BuildKit sets itself (the legacy builder leaves them empty). */
const PLATFORM_ARGS = [
  'TARGETARCH',
  'TARGETPLATFORM',
  'TARGETOS',
  'TARGETVARIANT',
  'BUILDPLATFORM',
  'BUILDARCH',
];

/** What a build of one target needs, read from its Dockerfile (pure). */
export interface DockerfileFindings {
  /** The stage built: the target, else the last one; undefined when the target is not there. */
  stage: DockerfileStage | undefined;
  /** Every stage whose result reaches it (FROM, COPY --from, RUN --mount from=), in file order. */
  stages: DockerfileStage[];
  /** BuildKit features it needs, each once (`RUN --mount=type=cache`, `COPY --chmod`, `ARG TARGETARCH`). */
  features: string[];
  /** Images it starts from (not a stage, not scratch), build args substituted. */
  bases: { image: string; stage: string; line: number; platform: string | undefined }[];
  /** FROM lines whose image still names a build arg nobody sets (`${NODE}` without default). */
  unresolved: { from: string; line: number }[];
  /** It starts from `${BASE_IMAGE}`: the engine must load the configured base. */
  usesBaseImage: boolean;
  /** Version variables an `ARG` of a stage reaching the target declares (so the build arg lands). */
  versionArgs: string[];
  /** Secret ids its `RUN --mount=type=secret` read. */
  secretIds: string[];
  /** Stages (name or index) that RUN commands on the target platform (not `--platform=$BUILDPLATFORM`). */
  runsOnTarget: string[];
  /** Stages that RUN commands on a platform written out (`FROM --platform=linux/amd64`), whatever is targeted. */
  runsOnFixed: { stage: string; platform: string }[];
  /** The image the built stage descends from (through `FROM <stage>`), args substituted. */
  root: string | undefined;
  /** Keys its stages set with LABEL (`org.opencontainers.image.source`). */
  labelKeys: string[];
  /** URLs an `ADD` of a reaching stage downloads while building (global args substituted). */
  downloads: { url: string; stage: string; line: number }[];
}

export function dockerfileFindings(
  parsed: ParsedDockerfile,
  options: {
    target?: string | undefined;
    /** Every build arg the build passes (the artifact's, the version's, BASE_IMAGE). */
    buildArgs: Record<string, string>;
    versionNames: readonly string[];
    /** The platform built (the first of several): the platform args BuildKit sets. */
    platform?: string | undefined;
  },
): DockerfileFindings {
  const byName = new Map(parsed.stages.filter((s) => s.name).map((s) => [s.name!, s]));
  const stageOf = (ref: string): DockerfileStage | undefined =>
    byName.get(ref.toLowerCase()) ?? (/^\d+$/.test(ref) ? parsed.stages[Number(ref)] : undefined);
  const stage = options.target ? byName.get(options.target.toLowerCase()) : parsed.stages.at(-1);
  const args = globalArgValues(parsed, options.buildArgs, options.platform);
  const reached = new Set<DockerfileStage>();
  const visit = (s: DockerfileStage) => {
    if (reached.has(s)) return;
    reached.add(s);
    const parent = parentStage(s, parsed.stages, stageOf, args);
    if (parent) visit(parent);
    for (const ref of stageRefs(s)) {
      const found = stageOf(ref);
      if (found && found.index < s.index) visit(found);
    }
  };
  if (stage) visit(stage);
  const stages = parsed.stages.filter((s) => reached.has(s));

  const features = new Set<string>();
  if (parsed.syntax) features.add(`# syntax=${parsed.syntax}`);
  const bases: DockerfileFindings['bases'] = [];
  const unresolved: DockerfileFindings['unresolved'] = [];
  const versionArgs = new Set<string>();
  const secretIds = new Set<string>();
  const runsOnTarget: string[] = [];
  const runsOnFixed: DockerfileFindings['runsOnFixed'] = [];
  const downloads: DockerfileFindings['downloads'] = [];
  const labelKeys = new Set<string>();
  let usesBaseImage = false;
  // `FROM ${BASE_IMAGE}` is the configured base only where the Dockerfile gives BASE_IMAGE no
  // default of its own: `ARG BASE_IMAGE=acme/base:2` names the project's own base (as its CI
  // builds it), which a build arg of ours must not replace.
  const ours = configuredBaseArg(parsed);
  const namesOurBase = (from: string) => ours && /\$\{?BASE_IMAGE\b/.test(from);
  for (const s of stages) {
    const label = s.name ?? String(s.index);
    if (namesOurBase(s.from)) usesBaseImage = true;
    if (!parentStage(s, parsed.stages, stageOf, args)) {
      const image = substitute(s.from, args);
      if (/\$/.test(image)) unresolved.push({ from: s.from, line: s.line });
      else if (image.toLowerCase() !== 'scratch' && !namesOurBase(s.from))
        bases.push({ image, stage: label, line: s.line, platform: s.platform });
    }
    if (s.platform) features.add('FROM --platform');
    if (s.instructions.some((i) => i.keyword === 'RUN')) {
      const fixed = fixedPlatform(s.platform);
      if (fixed) runsOnFixed.push({ stage: label, platform: fixed });
      else if (!/^\$\{?BUILDPLATFORM\}?$/.test(s.platform ?? '')) runsOnTarget.push(label);
    }
    for (const instruction of s.instructions) {
      for (const feature of instructionFeatures(instruction)) features.add(feature);
      if (instruction.keyword === 'ADD' && !instruction.heredoc)
        for (const source of addSources(instruction.args))
          if (/^https?:\/\//i.test(source))
            downloads.push({ url: substitute(source, args), stage: label, line: instruction.line });
      if (instruction.keyword === 'LABEL')
        for (const match of instruction.args.matchAll(/(?:^|\s)"?([^\s="]+)"?=/g)) labelKeys.add(match[1]!);
      if (instruction.keyword === 'ARG') {
        for (const name of argNames(instruction.args)) {
          if (PLATFORM_ARGS.includes(name)) features.add(`ARG ${name}`);
          if (options.versionNames.includes(name)) versionArgs.add(name);
        }
      }
      for (const flag of instruction.flags)
        if (flag.name === 'mount' && flag.options['type'] === 'secret') {
          const id = flag.options['id'] ?? flag.options['target']?.split('/').pop();
          if (id) secretIds.add(id);
        }
    }
  }
  let root = stage;
  for (let parent = root && parentStage(root, parsed.stages, stageOf, args); parent; ) {
    root = parent;
    parent = parentStage(root, parsed.stages, stageOf, args);
  }
  return {
    root: root ? substitute(root.from, args) : undefined,
    stage,
    stages,
    features: [...features],
    bases,
    unresolved,
    usesBaseImage,
    versionArgs: options.versionNames.filter((n) => versionArgs.has(n)),
    secretIds: [...secretIds],
    runsOnTarget,
    runsOnFixed,
    labelKeys: [...labelKeys],
    downloads,
  };
}

/** An ADD's sources: every word but the last (the destination), in the shell or the JSON form. */
function addSources(args: string): string[] {
  const text = args.trim();
  if (text.startsWith('[')) {
    try {
      const list = JSON.parse(text) as unknown;
      if (Array.isArray(list)) return list.slice(0, -1).filter((x): x is string => typeof x === 'string');
    } catch {
      // not JSON: read as words, as BuildKit does
    }
  }
  return text.split(/\s+/).slice(0, -1);
}

/**
 * A `FROM --platform=` written out (`linux/amd64`, as files pin helper images whose scripts are
 * the same on every platform): that stage is built and its base fetched for that platform alone,
 * whichever platforms the build targets. Undefined for none, or one naming a build arg.
 */
export function fixedPlatform(platform: string | undefined): string | undefined {
  return platform && !platform.includes('$') ? platform : undefined;
}

/** What in an instruction only BuildKit reads. */
function instructionFeatures(instruction: DockerfileInstruction): string[] {
  const out: string[] = [];
  for (const flag of instruction.flags) {
    if (instruction.keyword === 'RUN' && flag.name === 'mount')
      out.push(`RUN --mount=type=${flag.options['type'] ?? 'bind'}`);
    else if (instruction.keyword === 'RUN' && (flag.name === 'network' || flag.name === 'security'))
      out.push(`RUN --${flag.name}`);
    else if ((instruction.keyword === 'COPY' || instruction.keyword === 'ADD') && flag.name !== 'from')
      if (['chmod', 'link', 'parents', 'exclude', 'keep-git-dir', 'checksum'].includes(flag.name))
        out.push(`${instruction.keyword} --${flag.name}`);
  }
  if (instruction.heredoc) out.push('heredoc');
  return out;
}

/** The stage a FROM names when it names an earlier stage (build args substituted). */
function parentStage(
  s: DockerfileStage,
  stages: readonly DockerfileStage[],
  stageOf: (ref: string) => DockerfileStage | undefined,
  args: Record<string, string>,
): DockerfileStage | undefined {
  const found = stageOf(substitute(s.from, args));
  return found && found.index < s.index && found !== s ? stages[found.index] : undefined;
}

/** Stages an instruction reads: `COPY --from=<stage>`, `RUN --mount=...,from=<stage>`. */
function stageRefs(s: DockerfileStage): string[] {
  const refs: string[] = [];
  for (const instruction of s.instructions)
    for (const flag of instruction.flags) {
      if (flag.name === 'from' && flag.value) refs.push(flag.value);
      if (flag.name === 'mount' && flag.options['from']) refs.push(flag.options['from']);
    }
  return refs;
}

/** The global ARGs' values for FROM lines: their defaults, overridden by the build args passed. */
/**
 * Whether `${BASE_IMAGE}` in this Dockerfile means the configured base: its global `ARG
 * BASE_IMAGE` has no default (or it declares none). Pure.
 */
export function configuredBaseArg(parsed: ParsedDockerfile): boolean {
  return !parsed.globalArgs.some((a) => a.name === BASE_IMAGE_ARG && a.default !== undefined);
}

function globalArgValues(
  parsed: ParsedDockerfile,
  buildArgs: Record<string, string>,
  platform: string | undefined,
): Record<string, string> {
  // BuildKit sets the platform args in the global scope itself, so an ARG default before the first
  // FROM may build on them (`ARG DASHES=${TARGETPLATFORM/\//-}`), and so may a FROM line.
  const values: Record<string, string> = platform ? platformArgs(platform) : {};
  for (const arg of parsed.globalArgs) {
    const given = buildArgs[arg.name];
    const value = given ?? (arg.default === undefined ? values[arg.name] : substitute(arg.default, values));
    if (value !== undefined) values[arg.name] = unquote(value);
  }
  return values;
}

/** TARGETPLATFORM, TARGETOS, TARGETARCH, TARGETVARIANT and the BUILD* ones, for one platform (`linux/arm/v7`). */
export function platformArgs(platform: string): Record<string, string> {
  const [os = 'linux', arch = 'amd64', variant = ''] = platform.split('/');
  const args: Record<string, string> = {};
  for (const side of ['TARGET', 'BUILD']) {
    args[`${side}PLATFORM`] = platform;
    args[`${side}OS`] = os;
    args[`${side}ARCH`] = arch;
    args[`${side}VARIANT`] = variant;
  }
  return args;
}

/**
 * `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME:+alt}`, and the literal forms of
 * `${NAME/from/to}`, `${NAME//from/to}`, `${NAME#prefix}` and `${NAME%suffix}` (a `\/` in a
 * pattern is a slash), as Dockerfile substitution reads them. An unset name stays as written.
 */
export function substitute(text: string, values: Record<string, string>): string {
  return text.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*)|(\/\/?)((?:\\.|[^/}\\])*)(?:\/([^}]*))?|(##?|%%?)([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (
      whole,
      braced: string | undefined,
      op: string | undefined,
      word: string | undefined,
      replace: string | undefined,
      from: string | undefined,
      to: string | undefined,
      trim: string | undefined,
      affix: string | undefined,
      bare: string | undefined,
    ) => {
      const name = braced ?? bare;
      const value = values[name as string];
      if (op === '-') return value ? value : (word ?? '');
      if (op === '+') return value ? (word ?? '') : '';
      if (value === undefined) return whole;
      if (replace !== undefined) {
        // `${P/\//-}` reaches us unescaped as `${P///-}` (the parser drops the backslash of an
        // unquoted value): one slash replaced, not an empty pattern replaced everywhere.
        if (replace === '//' && from === '' && to !== undefined) [replace, from] = ['/', '/'];
        const pattern = (from ?? '').replace(/\\(.)/g, '$1');
        const target = (to ?? '').replace(/\\(.)/g, '$1');
        if (!pattern) return value;
        return replace === '//' ? value.split(pattern).join(target) : value.replace(pattern, () => target);
      }
      if (trim?.startsWith('#')) return affix && value.startsWith(affix) ? value.slice(affix.length) : value;
      if (trim?.startsWith('%'))
        return affix && value.endsWith(affix) ? value.slice(0, -affix.length) : value;
      return value;
    },
  );
}

function argNames(args: string): string[] {
  return args
    .split(/\s+/)
    .map((word) => word.split('=')[0] ?? '')
    .filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}
