/**
 * What `release init` reads from a Dockerfile: its stage names (build targets) and, for a simple
 * final stage (COPY, ENV, USER, EXPOSE, WORKDIR, ENTRYPOINT, CMD, ARG, LABEL only: no RUN), the
 * same image as a daemonless recipe. Pure: the file's text in, data out.
 */
export interface DockerfileFacts {
  /** `FROM ... AS <name>` names, in order: what `target` may name. */
  targets: string[];
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
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    return { keyword: keyword.toUpperCase(), rest: rest.trim() };
  });
  const targets: string[] = [];
  let stageStart = 0;
  instructions.forEach((instruction, i) => {
    if (instruction.keyword !== 'FROM') return;
    stageStart = i;
    const named = /\s+as\s+([A-Za-z0-9_.-]+)\s*$/i.exec(instruction.rest);
    if (named) targets.push(named[1]!);
  });
  return { targets, recipe: recipeOf(instructions.slice(stageStart)) };
}

function recipeOf(stage: { keyword: string; rest: string }[]): DockerfileFacts['recipe'] {
  const recipe: DockerRecipe = { copies: [], env: {}, exposedPorts: [] };
  const from = stage[0]?.rest ?? '';
  // The daemonless engine builds on the node base `release base-image` makes; a stage on another
  // image (python, nginx) or on an earlier stage needs the docker engine.
  if (!/^(?:\$\{?BASE_IMAGE\}?|node(?::\S*)?|docker\.io\/(?:library\/)?node(?::\S*)?)(?:\s|$)/i.test(from))
    return { unsupported: `it starts FROM ${from.split(/\s/)[0] || 'nothing'}, not the node base` };
  for (const { keyword, rest } of stage.slice(1)) {
    if (!SIMPLE.has(keyword)) return { unsupported: `it runs ${keyword} while building` };
    if (keyword === 'COPY' || keyword === 'ADD') {
      if (/--from=/.test(rest)) return { unsupported: 'it copies from another stage' };
      const parts = argList(rest.replace(/--\S+\s*/g, ''));
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
        if (!/\$\{?[A-Za-z_]/.test(value)) recipe.env[name] = value;
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
  return rest.startsWith('[') ? execForm(rest) : rest.split(/\s+/).filter(Boolean);
}

/** `ENV A=1 B="two words"` and the old `ENV A 1`. */
function envPairs(rest: string): [string, string][] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest)) {
    const [name, ...value] = rest.split(/\s+/);
    return name ? [[name, value.join(' ')]] : [];
  }
  return [...rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)].map(([, name, value]) => [
    name!,
    value!.startsWith('"') ? value!.slice(1, -1) : value!,
  ]);
}
