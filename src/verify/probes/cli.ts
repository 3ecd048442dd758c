import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { printable } from '../../shared/printable.ts';

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
    // Its own process group, so a deadline ends whatever a broken svc started, not just svc.
    const child = spawn(path, ['--version'], {
      env: options.env as NodeJS.ProcessEnv,
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (out.length < 64 * 1024) out += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    const finish = (result: ProbeResult) => {
      clearTimeout(timer);
      done(result);
    };
    child.on('error', (error) => finish(failed(path, `\`svc --version\` could not run: ${error.message}`)));
    child.on('exit', () => {
      // Whatever it left behind goes too, so its output pipe closes; one that escaped the group
      // gets a moment before the pipe is dropped.
      killGroup(child.pid);
      setTimeout(() => child.stdout.destroy(), 500).unref();
    });
    child.on('close', (code, signal) => {
      const text = out.trim();
      const match = /^svc\s+(\S+)\s*$/.exec(text.split('\n')[0] ?? '');
      if (timedOut) finish(failed(path, `\`svc --version\` gave no answer within ${options.timeoutMs} ms`));
      else if (code !== 0 && !match) {
        finish(failed(path, `\`svc --version\` failed (${signal ? `signal ${signal}` : `exit ${code}`})`));
      } else if (!match) {
        finish(
          failed(path, `\`svc --version\` printed "${printable(text, { max: 80 })}", not "svc <version>"`),
        );
      } else finish({ name: 'cli', source: path, version: printable(match[1]!) });
    });
  });
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
