import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../helpers/run-release.ts';

const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const BUILD_MAIN = fileURLToPath(new URL('../../src/service/web/build/main.ts', import.meta.url));

/**
 * Run the `build:web` entry (what `npm run build:web` runs) as a subprocess in `cwd`, with only
 * PATH, HOME and the given variables in its environment, so a `SERVICE_CLIENT_VERSION` of the
 * machine running the tests never leaks in.
 */
export function runBuildWeb(options: {
  outDir: string;
  cwd: string;
  env?: Record<string, string>;
  /** Extra arguments after `--out-dir <dir>`. */
  args?: string[];
}): Promise<RunResult> {
  const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...options.env };
  return new Promise((resolve) => {
    execFile(
      TSX,
      [BUILD_MAIN, '--out-dir', options.outDir, ...(options.args ?? [])],
      { cwd: options.cwd, env, timeout: 120_000, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
