import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { sanitize } from '../http.ts';
import type { ProbeResult } from '../types.ts';

export interface CliProbeOptions {
  /** The environment whose PATH is searched and that each `svc --version` runs with. */
  env: Record<string, string | undefined>;
  /** Where an empty PATH entry points (POSIX: the current directory). */
  cwd: string;
  timeoutMs: number;
}

/**
 * Every `svc` on PATH, in PATH order, each with what its `--version` prints. The first one is the
 * one the operator's shell runs; a later one only matters when it is the copy they meant to run
 * (spec section 7: "two svc executables are on the search path and the older one is found first").
 */
export async function probeCli(options: CliProbeOptions): Promise<ProbeResult[]> {
  const executables = await findOnPath('svc', options);
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

function readVersion(path: string, options: CliProbeOptions): Promise<ProbeResult> {
  return new Promise((done) => {
    execFile(
      path,
      ['--version'],
      {
        env: options.env as NodeJS.ProcessEnv,
        cwd: options.cwd,
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024,
        windowsHide: true,
      },
      (error, stdout) => {
        const out = String(stdout ?? '').trim();
        const match = /^svc\s+(\S+)\s*$/.exec(out.split('\n')[0] ?? '');
        if (error && (error as { killed?: boolean }).killed) {
          done(failed(path, `\`svc --version\` gave no answer within ${options.timeoutMs} ms`));
        } else if (error && !match) {
          done(failed(path, `\`svc --version\` failed: ${error.message.split('\n')[0]}`));
        } else if (!match) {
          done(failed(path, `\`svc --version\` printed "${sanitize(out, 80)}", not "svc <version>"`));
        } else {
          done({ name: 'cli', source: path, version: sanitize(match[1]!) });
        }
      },
    );
  });
}

function failed(source: string, error: string): ProbeResult {
  return { name: 'cli', source, version: undefined, error: sanitize(error, 300) };
}
