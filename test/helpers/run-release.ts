import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const RELEASE_BIN = fileURLToPath(new URL('../../bin/release.js', import.meta.url));

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the `release` command as a subprocess, the way a user or CI job does. `env` replaces the
 * variables the toolkit reads; PATH and HOME are kept so node and git work.
 */
export function runRelease(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number },
): Promise<RunResult> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
    CI: 'true',
  };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
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
