import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';

export const RELEASE_BIN = fileURLToPath(new URL('../../bin/release.js', import.meta.url));

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /**
   * Run `bin/release.js` as a real process (the compiled lib/, built by the global setup). Only
   * for what a process alone shows: its exit status, signals, Node's own reading of the command
   * line (`--env-file`), what reaches file descriptors 1 and 2. Everything else runs in process.
   */
  subprocess?: boolean;
}

/**
 * Run a `release` command the way a user or CI job does, with the environment a CI job has: `env`
 * replaces the variables the toolkit reads; PATH and HOME are kept so node and git work.
 *
 * By default the command runs in this process through `main(argv, io)`, with `cwd`, that
 * environment and collected stdout/stderr as its own (no process state is touched, so runs may
 * overlap): the same code path as the bin, less Node's start-up per run.
 */
export function runRelease(args: string[], options: RunOptions): Promise<RunResult> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
    CI: 'true',
  };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return options.subprocess ? runProcess(args, options, env) : runInProcess(args, options, env);
}

async function runInProcess(
  args: string[],
  options: RunOptions,
  env: Record<string, string>,
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const run = main(args, {
    cwd: options.cwd,
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`release ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`)),
      timeoutMs,
    );
  });
  try {
    const code = await Promise.race([run, timedOut]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

function runProcess(args: string[], options: RunOptions, env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      // `--` so node never reads our flags (Node 20 treats a later `--env-file` as its own).
      ['--', RELEASE_BIN, ...args],
      { cwd: options.cwd, env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Parse the JSON document a `--json` run printed, with the output in the error if it is not JSON. */
export function jsonOf<T = Record<string, unknown>>(result: RunResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
}
