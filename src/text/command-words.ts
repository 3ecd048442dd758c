import { type ParseEntry, parse as parseShell } from 'shell-quote';

/** A command as a deployment file writes it: a list (exec form) or one string (shell form). */
export type CommandLine = string | readonly unknown[];

/** Between two simple commands of one line (`a && b`, `a; b`, `a | b`): no word can equal it. */
const BETWEEN: unique symbol = Symbol('between commands');
type Token = string | typeof BETWEEN;

// Init processes that run the real command after their own options (and an optional `--`):
// tini (also Docker's `--init`, docker-init), dumb-init, catatonit. The options that take a value.
const WRAPPERS: Record<string, ReadonlySet<string>> = {
  tini: new Set(['-p', '-e']),
  'docker-init': new Set(['-p', '-e']),
  'dumb-init': new Set(['-r', '--rewrite']),
  catatonit: new Set(),
};
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh', 'mksh']);
// A shell's options that take the next word (`bash -o pipefail -c …`, `bash --rcfile f -c …`).
const SHELL_VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);
// A shell payload holding another shell: deeper than this is not a command anyone deploys.
const MAX_DEPTH = 4;

/**
 * The words of a command as written: a list as it is (each item one word, as Compose and
 * Kubernetes pass them), a string split as Compose splits it (shell words: quotes group, a
 * backslash escapes; `$VAR` kept as written). Operators such as `&&` are not words.
 */
export function commandWords(command: CommandLine): string[] {
  if (typeof command !== 'string') return command.map((w) => String(w));
  return splitShell(command).filter((t): t is string => t !== BETWEEN);
}

/**
 * Whether a container or service running `argv` (entrypoint then command, a list or a string)
 * runs `command` (a role's, as the config declares it), as the engines run them: both are read
 * the same way (a string split into shell words; an init wrapper such as `tini --` or `dumb-init`
 * stripped; the payload of `sh -c "…"`, `bash -c`, `/bin/sh -c` split again), and the command
 * must be a run of consecutive words of one of the simple commands the argv runs (so
 * `/entrypoint.sh celery -A acme worker -l info` runs `celery -A acme worker`).
 * Returns how many words matched (longer is more specific: `celery -A acme beat` before
 * `celery`), 0 when it does not run it. Pure; the one matcher of init, bump, verify, watch and
 * upgrade.
 */
export function commandMatch(argv: CommandLine, command: CommandLine): number {
  const wanted = trimmed(unwrap(words(command), 0));
  if (wanted.length === 0) return 0;
  return containsRun(unwrap(words(argv), 0), wanted) ? wanted.filter((t) => t !== BETWEEN).length : 0;
}

/**
 * Whether `command` is run by the last simple command of argv's line (`migrate && exec serve`:
 * serve): the process a container keeps running when its line runs several, where an API that
 * migrates before it serves is told from the migration job run on its own.
 */
export function runsLast(argv: CommandLine, command: CommandLine): boolean {
  const wanted = trimmed(unwrap(words(command), 0));
  if (wanted.length === 0) return false;
  const tokens = trimmed(unwrap(words(argv), 0));
  return containsRun(tokens.slice(tokens.lastIndexOf(BETWEEN) + 1), wanted);
}

/** `commandMatch(argv, command) > 0`. */
export function runsCommand(argv: CommandLine, command: CommandLine): boolean {
  return commandMatch(argv, command) > 0;
}

/**
 * The command a line runs at heart, as a role's `command` is best declared: an init wrapper
 * stripped, a shell's `-c` payload split and `exec` before it dropped
 * (`sh -c "exec pnpm exec prisma migrate deploy"` -> `pnpm exec prisma migrate deploy`). A line
 * that runs several commands (`sh -c "migrate && serve"`) is kept as written: no one of them is
 * the whole of it.
 */
export function coreCommand(command: CommandLine): string[] {
  const tokens = trimmed(unwrap(words(command), 0));
  if (tokens.includes(BETWEEN)) return commandWords(command);
  return tokens.length ? (tokens as string[]) : commandWords(command);
}

function words(command: CommandLine): string[] {
  return commandWords(command);
}

/** Shell words and the operators between simple commands (`$VAR` kept, globs as written). */
function splitShell(text: string): Token[] {
  const out: Token[] = [];
  for (const entry of parsedShell(linesJoined(text))) {
    if (typeof entry === 'string') out.push(entry);
    else if ('comment' in entry) break;
    else if (entry.op === 'glob') out.push(entry.pattern);
    else out.push(BETWEEN);
  }
  return out;
}

/**
 * The shell parser throws on text no shell would run either (`${` left open): a user's compose
 * line is outside data, so such a line is read as words between spaces rather than failing the
 * whole command that read it.
 */
function parsedShell(text: string): ParseEntry[] {
  try {
    return parseShell(text, (name) => `$${name}`);
  } catch {
    return text.split(/\s+/).filter(Boolean);
  }
}

/**
 * A multi-line script (a YAML block under `sh -c`) as one line: a newline outside quotes ends a
 * command as `;` does, a backslash before it continues the line. The shell parser reads a
 * newline as a space, which would run the last word of one command into the next.
 */
function linesJoined(text: string): string {
  if (!text.includes('\n')) return text;
  let out = '';
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && quote !== "'") {
      if (text[i + 1] !== '\n') out += c + (text[i + 1] ?? '');
      i++;
    } else if (quote) {
      if (c === quote) quote = '';
      out += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      out += c;
    } else out += c === '\n' ? ';' : c;
  }
  return out;
}

/** The tokens a word list runs: wrappers stripped and shell payloads opened, wherever they come. */
function unwrap(argv: readonly Token[], depth: number): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < argv.length) {
    const word = argv[i]!;
    // `exec` starting a command replaces the shell with it: the command is what follows.
    if (word === 'exec' && i + 1 < argv.length && (out.length === 0 || out[out.length - 1] === BETWEEN)) {
      i++;
      continue;
    }
    const name = typeof word === 'string' ? baseName(word) : '';
    const wrapper = WRAPPERS[/^tini-static/.test(name) ? 'tini' : name];
    if (wrapper) {
      i = afterWrapperOptions(argv, i + 1, wrapper);
      continue;
    }
    const payload = SHELLS.has(name) && depth < MAX_DEPTH ? payloadAt(argv, i + 1) : -1;
    if (payload >= 0) {
      // The words after the payload are its $0, $1…: not commands.
      out.push(BETWEEN, ...unwrap(splitShell(argv[payload] as string), depth + 1), BETWEEN);
      i = argv.length;
      continue;
    }
    out.push(word);
    i++;
  }
  return out;
}

function afterWrapperOptions(argv: readonly Token[], from: number, takesValue: ReadonlySet<string>): number {
  let i = from;
  while (i < argv.length) {
    const word = argv[i];
    if (typeof word !== 'string' || !word.startsWith('-')) return i;
    if (word === '--') return i + 1;
    i += takesValue.has(word) ? 2 : 1;
  }
  return i;
}

/** Where a shell's `-c` payload is (`sh -c`, `bash -ec`, `bash -o pipefail -c`), else -1. */
function payloadAt(argv: readonly Token[], from: number): number {
  let command = false;
  let i = from;
  while (i < argv.length) {
    const word = argv[i];
    if (typeof word !== 'string') return -1;
    if (word === '--') {
      i++;
      break;
    }
    if (SHELL_VALUE_OPTIONS.has(word)) i += 2;
    else if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word.startsWith('-') && word.includes('c')) command = true;
      i++;
    } else if (word.startsWith('--')) i++;
    else break;
  }
  return command && typeof argv[i] === 'string' ? i : -1;
}

function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** Without separators at either end or twice in a row. */
function trimmed(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens)
    if (t !== BETWEEN || (out.length > 0 && out[out.length - 1] !== BETWEEN)) out.push(t);
  if (out[out.length - 1] === BETWEEN) out.pop();
  return out;
}

function containsRun(argv: readonly Token[], run: readonly Token[]): boolean {
  for (let start = 0; start + run.length <= argv.length; start++)
    if (run.every((word, i) => argv[start + i] === word)) return true;
  return false;
}
