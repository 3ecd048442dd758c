import { shellWords } from './shell-words.ts';

/**
 * What `release init` reads from a Dockerfile: its stage names (build targets), its build args,
 * and, for a simple final stage (COPY, ENV, USER, EXPOSE, WORKDIR, ENTRYPOINT, CMD, ARG, LABEL
 * only: no RUN), the same image as a daemonless recipe. Pure: the file's text in, data out.
 * Read with string operations and anchored patterns on single tokens only, so the time is linear
 * in the text whatever a line holds (a minified line of a megabyte included).
 */
export interface DockerfileFacts {
  /** `FROM ... AS <name>` names, in order: what `target` may name. */
  targets: string[];
  /** `ARG NAME[=default]` of every stage, in order, each name once. */
  args: { name: string; default?: string }[];
  /** Build args a FROM line names whose ARG has no default: the build needs them given. */
  fromArgs: string[];
  /**
   * Build args that pick the image a stage starts FROM (`FROM golang:${GO_VERSION}`), directly or
   * through another ARG's default: a toolchain's or a base's version, never the service's.
   */
  baseArgs: string[];
  /** COPY/ADD sources of every stage (not `--from` ones): what the build context must hold. */
  copySources: string[];
  /** The final stage as an oci recipe, or why it cannot be one. */
  recipe: DockerRecipe | { unsupported: string };
}

export interface DockerRecipe {
  /** COPY sources (relative to the build context) and their destinations in the image. */
  copies: { from: string; to: string }[];
  entrypoint?: string[];
  cmd?: string[];
  env: Record<string, string>;
  user?: string;
  workdir?: string;
  exposedPorts: string[];
}

const SIMPLE = new Set([
  'FROM',
  'ARG',
  'ENV',
  'COPY',
  'ADD',
  'USER',
  'EXPOSE',
  'WORKDIR',
  'ENTRYPOINT',
  'CMD',
  'LABEL',
]);

export function readDockerfile(text: string): DockerfileFacts {
  const instructions = logicalLines(text).map((line) => {
    const space = line.search(/\s/);
    const keyword = space < 0 ? line : line.slice(0, space);
    return { keyword: keyword.toUpperCase(), rest: space < 0 ? '' : line.slice(space).trim() };
  });
  const targets: string[] = [];
  const args: DockerfileFacts['args'] = [];
  const seen = new Set<string>();
  const copySources: string[] = [];
  const fromArgs = new Set<string>();
  const defaulted = new Set<string>();
  const inFrom = new Set<string>();
  let stageStart = 0;
  instructions.forEach((instruction, i) => {
    if (instruction.keyword === 'ARG') {
      for (const word of shellWords(instruction.rest)) {
        const eq = word.indexOf('=');
        const name = eq < 0 ? word : word.slice(0, eq);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || seen.has(name)) continue;
        seen.add(name);
        if (eq >= 0) defaulted.add(name);
        args.push(eq < 0 ? { name } : { name, default: word.slice(eq + 1) });
      }
    }
    if (instruction.keyword === 'COPY' || instruction.keyword === 'ADD') {
      const words = argList(instruction.rest);
      if (!words.some((w) => w.startsWith('--from=')))
        copySources.push(...words.filter((w) => !w.startsWith('--')).slice(0, -1));
    }
    if (instruction.keyword !== 'FROM') return;
    stageStart = i;
    for (const name of variablesIn(instruction.rest)) inFrom.add(name);
    const words = shellWords(instruction.rest);
    // `FROM ${FROM}`: a build arg the image cannot be built without, when its ARG has no default.
    const image = words.find((w) => !w.startsWith('--')) ?? '';
    if (image.startsWith('$')) {
      const name = image.replace(/^\$\{?/, '').replace(/\}$/, '');
      if (seen.has(name) && !defaulted.has(name)) fromArgs.add(name);
    }
    if (words.length >= 3 && words.at(-2)!.toLowerCase() === 'as' && /^[A-Za-z0-9_.-]+$/.test(words.at(-1)!))
      targets.push(words.at(-1)!);
  });
  // `ARG IMAGE=golang:${GO_VERSION}` then `FROM ${IMAGE}`: GO_VERSION picks the base too.
  for (let grew = true; grew; ) {
    grew = false;
    for (const arg of args)
      if (inFrom.has(arg.name) && arg.default !== undefined)
        for (const name of variablesIn(arg.default))
          if (!inFrom.has(name)) {
            inFrom.add(name);
            grew = true;
          }
  }
  return {
    targets,
    args,
    copySources,
    fromArgs: [...fromArgs],
    baseArgs: args.map((a) => a.name).filter((name) => inFrom.has(name)),
    recipe: recipeOf(instructions.slice(stageStart)),
  };
}

/** The variables a text names: `$NAME` and `${NAME...}`, scanned once. */
function variablesIn(text: string): string[] {
  const out: string[] = [];
  for (let i = text.indexOf('$'); i >= 0; i = text.indexOf('$', i + 1)) {
    const start = text[i + 1] === '{' ? i + 2 : i + 1;
    let end = start;
    while (end < text.length && /[A-Za-z0-9_]/.test(text[end]!)) end++;
    if (end > start && /[A-Za-z_]/.test(text[start]!)) out.push(text.slice(start, end));
  }
  return out;
}

function recipeOf(stage: { keyword: string; rest: string }[]): DockerfileFacts['recipe'] {
  const recipe: DockerRecipe = { copies: [], env: {}, exposedPorts: [] };
  const from = shellWords(stage[0]?.rest ?? '').find((w) => !w.startsWith('--')) ?? '';
  // The daemonless engine builds on the node base `release base-image` makes; a stage on another
  // image (python, nginx) or on an earlier stage needs the docker engine.
  if (!/^(?:\$\{?BASE_IMAGE\}?|node(?::\S*)?|docker\.io\/(?:library\/)?node(?::\S*)?)$/i.test(from))
    return { unsupported: `it starts FROM ${from.slice(0, 80) || 'nothing'}, not the node base` };
  for (const { keyword, rest } of stage.slice(1)) {
    if (!SIMPLE.has(keyword)) return { unsupported: `it runs ${keyword} while building` };
    if (keyword === 'COPY' || keyword === 'ADD') {
      const words = argList(rest);
      if (words.some((w) => w.startsWith('--from='))) return { unsupported: 'it copies from another stage' };
      const parts = words.filter((w) => !w.startsWith('--'));
      if (parts.length < 2) continue;
      const to = parts.at(-1)!;
      for (const source of parts.slice(0, -1)) {
        const dest = to.endsWith('/') && !source.endsWith('/') ? `${to}${source.split('/').pop()}` : to;
        recipe.copies.push({
          from: source.replace(/^\.\/?/, '').replace(/\/$/, '') || '.',
          to: dest.replace(/\/$/, ''),
        });
      }
    } else if (keyword === 'ENV') {
      for (const [name, value] of envPairs(rest)) {
        // ${SERVICE_VERSION}-style values come from build args the build sets itself.
        if (!value.includes('$')) recipe.env[name] = value;
      }
    } else if (keyword === 'USER') recipe.user = rest;
    else if (keyword === 'WORKDIR') recipe.workdir = rest;
    else if (keyword === 'EXPOSE') recipe.exposedPorts.push(...rest.split(/\s+/).filter(Boolean));
    else if (keyword === 'ENTRYPOINT') recipe.entrypoint = execForm(rest);
    else if (keyword === 'CMD') recipe.cmd = execForm(rest);
  }
  if (!recipe.entrypoint && !recipe.cmd) return { unsupported: 'it has no ENTRYPOINT or CMD' };
  if (!recipe.entrypoint) {
    recipe.entrypoint = recipe.cmd;
    delete recipe.cmd;
  }
  return recipe;
}

/** Instructions one per line: continuation backslashes joined, comments and blanks dropped. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!current && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) current += `${line.slice(0, -1)} `;
    else {
      out.push(current + line);
      current = '';
    }
  }
  if (current) out.push(current);
  return out;
}

/** `["a", "b"]` as written; the shell form as `sh -c <text>`, which is what Docker runs. */
function execForm(rest: string): string[] {
  if (rest.startsWith('[')) {
    try {
      const parsed = JSON.parse(rest) as unknown;
      if (Array.isArray(parsed) && parsed.every((p) => typeof p === 'string')) return parsed;
    } catch {
      // not JSON: Docker runs it through the shell as well
    }
  }
  return ['/bin/sh', '-c', rest];
}

function argList(rest: string): string[] {
  return rest.startsWith('[') ? execForm(rest) : shellWords(rest);
}

/** `ENV A=1 B="two words"` and the old `ENV A 1`. */
function envPairs(rest: string): [string, string][] {
  const words = shellWords(rest);
  const first = words[0] ?? '';
  if (!first.includes('=')) return first ? [[first, words.slice(1).join(' ')]] : [];
  return words
    .filter((w) => w.indexOf('=') > 0)
    .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] as [string, string])
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
}
