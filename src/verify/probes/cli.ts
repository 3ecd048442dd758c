import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { printable } from '../../text/printable.ts';
import { redact } from '../../text/redact.ts';

import type { ProbeResult } from '../types.ts';

export interface CliProbeOptions {
  /** The CLI's program name (the config's CLI artifact's bin: `svc`, `acme`). */
  program: string;
  /** The environment whose PATH is searched and that each `<program> --version` runs with. */
  env: Record<string, string | undefined>;
  /** Where an empty PATH entry points (POSIX: the current directory). */
  cwd: string;
  timeoutMs: number;
}

/**
 * Every copy of the CLI's program on PATH, in PATH order, each with what its `--version` prints.
 * The first one is the one the operator's shell runs; a later one only matters when it is the
 * copy they meant to run (spec section 7: "two svc executables are on the search path and the
 * older one is found first"). The program is the config's CLI's, never one of the toolkit's.
 */
export async function probeCli(options: CliProbeOptions): Promise<ProbeResult[]> {
  if (!/^[A-Za-z0-9_@][A-Za-z0-9._@+-]{0,63}$/.test(options.program)) return [];
  const executables = await findOnPath(options.program, options);
  return Promise.all(executables.map((path) => readVersion(path, options)));
}

export async function findOnPath(program: string, options: { env: CliProbeOptions['env']; cwd: string }) {
  const seen = new Set<string>();
  const found: string[] = [];
  for (const entry of (options.env['PATH'] ?? '').split(delimiter)) {
    const dir = resolve(options.cwd, entry === '' ? '.' : entry);
    if (seen.has(dir)) continue;
    seen.add(dir);
    const candidate = join(dir, program);
    if (await isExecutableFile(candidate)) found.push(candidate);
  }
  return found;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The version in the first line `--version` prints: `<program> <version>` (svc's form), `<program>
 * version <version>`, `<program>, version <version>` (Python's click), or the version alone
 * (`1.2.3`, most CLIs). Undefined for anything else.
 */
export function versionLine(line: string, program: string): string | undefined {
  const words = line.trim().split(/\s+/).filter(Boolean);
  const named = words[0] === program || words[0] === `${program},`;
  if (named) words.shift();
  if (named && words[0] === 'version' && words.length === 2) words.shift();
  if (words.length !== 1 || words[0] === 'version') return undefined;
  // Alone, only what looks like a version: a greeting or an error line is not one.
  return named || /^v?\d/.test(words[0]!) ? words[0] : undefined;
}

function readVersion(path: string, options: CliProbeOptions): Promise<ProbeResult> {
  const { program } = options;
  return new Promise((done) => {
    // Its own process group, so a deadline ends whatever a broken svc started, not just svc.
    const child = spawn(path, ['--version'], {
      env: options.env as NodeJS.ProcessEnv,
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (out.length < 64 * 1024) out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (err.length < 64 * 1024) err += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    const finish = (result: ProbeResult) => {
      clearTimeout(timer);
      done(result);
    };
    child.on('error', (error) =>
      finish(failed(path, `\`${program} --version\` could not run: ${error.message}`)),
    );
    child.on('exit', () => {
      // Whatever it left behind goes too, so its output pipe closes; one that escaped the group
      // gets a moment before the pipe is dropped.
      killGroup(child.pid);
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 500).unref();
    });
    child.on('close', (code, signal) => {
      const text = out.trim();
      const version = versionLine(text.split('\n')[0] ?? '', program);
      if (timedOut)
        finish(failed(path, `\`${program} --version\` gave no answer within ${options.timeoutMs} ms`));
      else if (code !== 0 && version === undefined) {
        const said = ownWords(err || text, options.env);
        finish(
          failed(
            path,
            `\`${program} --version\` failed (${signal ? `signal ${signal}` : `exit ${code}`})${said ? `: ${said}` : ''}`,
          ),
        );
      } else if (version === undefined) {
        const said = ownWords(err, options.env);
        finish(
          failed(
            path,
            `\`${program} --version\` printed "${printable(ownWords(text, options.env), { max: 80 })}", not "${program} <version>"${said ? ` (stderr: ${said})` : ''}`,
          ),
        );
      } else finish({ name: 'cli', source: path, version: printable(version) });
    });
  });
}

// Names of variables whose values a CLI might echo in an error and nobody may read in a report.
const SECRET_NAME = /TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|API_?KEY|PRIVATE/i;

/**
 * What the CLI said, as the row shows it: without stack frames, its first error line and its
 * last line (Node prints the error, then its stack, then its own version; Python the traceback,
 * then the error), on one line, at most 200 characters, every registered secret and the value of
 * every secret-looking variable of its environment masked.
 */
export function ownWords(text: string, env: Record<string, string | undefined>): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^at\s/.test(l) && !/^\^+$/.test(l) && !/^File ".*", line \d+/.test(l));
  const error = lines.find((l) => /error|exception|fatal|requires|unsupported/i.test(l));
  const last = lines[lines.length - 1];
  let said = [...new Set([error, last].filter((l): l is string => l !== undefined))].join(' | ');
  for (const [name, value] of Object.entries(env))
    if (value && value.length >= 4 && SECRET_NAME.test(name)) said = said.split(value).join('***');
  said = redact(said);
  return printable(said.length > 200 ? `…${said.slice(-199)}` : said, { max: 200 });
}

function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function failed(source: string, error: string): ProbeResult {
  return { name: 'cli', source, version: undefined, error: printable(error, { max: 300 }) };
}
