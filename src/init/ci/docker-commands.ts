import { shellWords } from '../shell-words.ts';

/**
 * The `docker build` / `docker buildx build` / `docker image build` / `docker buildx bake`
 * commands of a shell script (a workflow's `run:`, a GitLab job's `script:`), with their flags,
 * and the references its `docker push` / `docker buildx imagetools create` lines push. Lines
 * joined on a trailing backslash, commands split on `&&`, `||`, `;` and `|`. `$VAR` and `${VAR}`
 * are replaced by `env` where it has them; the rest is kept as written. Pure and linear in the
 * script's length (one pass per line, no backtracking pattern).
 */
export interface DockerCommand {
  tool: 'docker build' | 'docker buildx build' | 'docker buildx bake';
  /** The build context (a path or URL) as written; bake has none. */
  context?: string;
  file?: string;
  target?: string;
  buildArgs: Record<string, string>;
  platforms: string[];
  tags: string[];
  /** `--push`, or `--output type=registry` / `type=image,push=true`. */
  push: boolean;
  /** bake: its files (`-f`) and targets (the positional words). */
  bake?: { files: string[]; targets: string[]; set: string[] };
}

export interface ScriptDocker {
  builds: DockerCommand[];
  /** References a `docker push`, `docker image push` or `imagetools create -t` names. */
  pushed: string[];
}

// Build flags that take a value (the rest are switches): what tells a value from the context.
const VALUED = new Set([
  '-f',
  '--file',
  '-t',
  '--tag',
  '--target',
  '--build-arg',
  '--platform',
  '-o',
  '--output',
  '--cache-from',
  '--cache-to',
  '--label',
  '--secret',
  '--ssh',
  '--progress',
  '--build-context',
  '--iidfile',
  '--metadata-file',
  '--network',
  '--provenance',
  '--sbom',
  '--attest',
  '--annotation',
  '--builder',
  '--add-host',
  '--allow',
  '--shm-size',
  '--ulimit',
  '--cgroup-parent',
  '--set',
  '--call',
  '--memory',
  '--cpu-shares',
  '--isolation',
  '--squash',
]);
const SEPARATORS = new Set(['&&', '||', ';', '|', '&']);
const MAX_LINE = 64 * 1024;

export function dockerCommandsOf(script: string, env: Readonly<Record<string, string>> = {}): ScriptDocker {
  const out: ScriptDocker = { builds: [], pushed: [] };
  for (const line of logicalLines(script)) {
    // A line this long is data (a minified blob), not a build command anyone wrote.
    if (line.length > MAX_LINE || !(line.includes('docker') || line.includes('executor'))) continue;
    for (const words of commands(shellWords(line))) {
      const argv = words.map((w) => expandVars(w, env));
      // kaniko's executor builds and pushes without a daemon (GitLab's usual way).
      const kaniko = argv.findIndex((w) => w === '/kaniko/executor' || w === 'executor');
      if (
        kaniko >= 0 &&
        argv.slice(kaniko + 1).some((w) => w.startsWith('--context') || w.startsWith('--destination'))
      ) {
        readKaniko(argv.slice(kaniko + 1), out);
        continue;
      }
      let i = 0;
      // `sudo docker`, `VAR=x docker`, `time docker`: the command proper starts at `docker`.
      while (i < argv.length && argv[i] !== 'docker') i++;
      if (i >= argv.length) continue;
      const rest = argv.slice(i + 1);
      const verb = rest.slice(0, 2).join(' ');
      if (rest[0] === 'build' || verb === 'image build')
        read('docker build', rest.slice(rest[0] === 'build' ? 1 : 2), out);
      else if (verb === 'buildx build') read('docker buildx build', rest.slice(2), out);
      else if (verb === 'buildx bake' || rest[0] === 'bake')
        read('docker buildx bake', rest.slice(rest[0] === 'bake' ? 1 : 2), out);
      else if (rest[0] === 'push' || verb === 'image push')
        out.pushed.push(
          ...rest
            .slice(rest[0] === 'push' ? 1 : 2)
            .filter((w) => !w.startsWith('-'))
            .slice(0, 1),
        );
      else if (verb === 'buildx imagetools' && rest[2] === 'create') {
        const created = flags(rest.slice(3));
        out.pushed.push(...(created.values.get('-t') ?? []), ...(created.values.get('--tag') ?? []));
      } else if (verb === 'manifest push')
        out.pushed.push(
          ...rest
            .slice(2)
            .filter((w) => !w.startsWith('-'))
            .slice(0, 1),
        );
    }
  }
  return out;
}

function read(tool: DockerCommand['tool'], args: string[], out: ScriptDocker): void {
  const { values, switches, positional } = flags(args);
  const all = (...names: string[]) => names.flatMap((n) => values.get(n) ?? []);
  const outputs = all('-o', '--output');
  const command: DockerCommand = {
    tool,
    buildArgs: Object.fromEntries(
      all('--build-arg').map((a) => {
        const eq = a.indexOf('=');
        return eq < 0 ? [a, ''] : [a.slice(0, eq), a.slice(eq + 1)];
      }),
    ),
    platforms: all('--platform')
      .flatMap((p) => p.split(','))
      .filter(Boolean),
    tags: all('-t', '--tag'),
    push:
      switches.has('--push') ||
      outputs.some(
        (o) => o.includes('type=registry') || (o.includes('type=image') && o.includes('push=true')),
      ),
  };
  if (tool === 'docker buildx bake') {
    command.bake = { files: all('-f', '--file'), targets: positional, set: all('--set') };
    if (command.bake.set.some((s) => s.endsWith('.output=type=registry'))) command.push = true;
  } else {
    if (positional[0] !== undefined) command.context = positional[0];
    const file = all('-f', '--file')[0];
    if (file !== undefined) command.file = file;
    const target = all('--target')[0];
    if (target !== undefined) command.target = target;
  }
  out.builds.push(command);
}

/** `executor --context dir --dockerfile f --destination ref --target t --build-arg A=b`. */
function readKaniko(args: string[], out: ScriptDocker): void {
  const values = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.startsWith('--')) continue;
    const eq = word.indexOf('=');
    if (eq > 0) push(values, word.slice(0, eq), word.slice(eq + 1));
    else if (i + 1 < args.length && !args[i + 1]!.startsWith('--')) push(values, word, args[++i]!);
  }
  const all = (name: string) => values.get(name) ?? [];
  const context = all('--context')[0]?.replace(/^dir:\/\//, '');
  const file = all('--dockerfile')[0];
  const target = all('--target')[0];
  out.builds.push({
    tool: 'docker build',
    ...(context !== undefined ? { context } : {}),
    ...(file !== undefined ? { file } : {}),
    ...(target !== undefined ? { target } : {}),
    buildArgs: Object.fromEntries(
      all('--build-arg').map((a) => {
        const eq = a.indexOf('=');
        return eq < 0 ? [a, ''] : [a.slice(0, eq), a.slice(eq + 1)];
      }),
    ),
    platforms: all('--custom-platform'),
    tags: all('--destination'),
    push: !args.includes('--no-push'),
  });
}

function flags(args: string[]): {
  values: Map<string, string[]>;
  switches: Set<string>;
  positional: string[];
} {
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.startsWith('-') || word === '-') {
      positional.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const name = eq > 0 && word.startsWith('--') ? word.slice(0, eq) : word;
    // `-tname:tag` and `-fDockerfile`: a short flag with its value attached.
    const short = !word.startsWith('--') && word.length > 2 && VALUED.has(word.slice(0, 2));
    if (short) push(values, word.slice(0, 2), word.slice(2));
    else if (eq > 0 && word.startsWith('--')) push(values, name, word.slice(eq + 1));
    else if (VALUED.has(name) && i + 1 < args.length) push(values, name, args[++i]!);
    else switches.add(name);
  }
  return { values, switches, positional };
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Words split into commands at shell separators (as words of their own or at a word's end). */
function commands(words: string[]): string[][] {
  const out: string[][] = [[]];
  for (const word of words) {
    if (SEPARATORS.has(word)) {
      out.push([]);
      continue;
    }
    if (word.length > 1 && word.endsWith(';')) {
      out.at(-1)!.push(word.slice(0, -1));
      out.push([]);
      continue;
    }
    out.at(-1)!.push(word);
  }
  return out.filter((c) => c.length > 0);
}

/** Lines with continuation backslashes joined; comment lines dropped. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (!current && line.trimStart().startsWith('#')) continue;
    if (line.endsWith('\\')) current += `${line.slice(0, -1)} `;
    else {
      out.push(current + line);
      current = '';
    }
  }
  if (current) out.push(current);
  return out;
}

/** `$NAME` and `${NAME}` replaced where `env` has NAME; anything else kept. One pass. */
export function expandVars(word: string, env: Readonly<Record<string, string>>): string {
  if (!word.includes('$')) return word;
  let out = '';
  let i = 0;
  while (i < word.length) {
    const dollar = word.indexOf('$', i);
    if (dollar < 0) return out + word.slice(i);
    out += word.slice(i, dollar);
    let name: string;
    let end: number;
    if (word[dollar + 1] === '{') {
      const close = word.indexOf('}', dollar + 2);
      if (close < 0) return out + word.slice(dollar);
      name = word.slice(dollar + 2, close);
      end = close + 1;
    } else {
      end = dollar + 1;
      while (end < word.length && /[A-Za-z0-9_]/.test(word[end]!)) end++;
      name = word.slice(dollar + 1, end);
    }
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    out += value ?? word.slice(dollar, end);
    i = Math.max(end, dollar + 1);
  }
  return out;
}
