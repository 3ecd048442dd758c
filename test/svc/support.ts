import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCliArchive } from '../../src/service/svc/build/build-cli-archive.ts';
import { bundleSvc } from '../../src/service/svc/build/bundle-svc.ts';
import { cliPackageJson } from '../../src/service/svc/build/package-json.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const API_BIN = join(ROOT, 'bin/service-api.js');
export const SVC_DEV_BIN = join(ROOT, 'bin/svc.js');

/** A temp directory removed by `cleanup()`. */
export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), 'sr-svc-'));
  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A real archive, the way `npm run build:cli` makes it. */
export async function archiveOf(version: string, dir: string): Promise<string> {
  const { path } = await buildCliArchive({ version, outFile: join(dir, `service-cli-${version}.tar.gz`) });
  return path;
}

/** Just the bundled svc.js (and its package.json), for running with `node` without installing. */
export async function bundleOf(version: string, dir: string): Promise<string> {
  const packageDir = join(dir, `bundle-${version}`);
  mkdirSync(packageDir, { recursive: true });
  writeFileSync(join(packageDir, 'package.json'), JSON.stringify(cliPackageJson(version)));
  await bundleSvc({ version, outFile: join(packageDir, 'svc.js') });
  return join(packageDir, 'svc.js');
}

/** `npm install -g --prefix <prefix> <archive-or-url>`: real npm, never the machine's global prefix. */
export function npmInstall(prefix: string, spec: string): Promise<RunResult> {
  return run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', spec], {
    env: baseEnv(),
    timeoutMs: 120_000,
  });
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the child, in ms. */
  ms: number;
}

/** PATH with the given bin directories first; HOME as given; nothing else inherited. */
export function baseEnv(options: { home?: string; binDirs?: string[] } = {}): Record<string, string> {
  return {
    PATH: [...(options.binDirs ?? []), process.env['PATH'] ?? ''].join(':'),
    HOME: options.home ?? process.env['HOME'] ?? '/tmp',
  };
}

export function run(
  file: string,
  args: string[],
  options: { env: Record<string, string | undefined>; cwd?: string; timeoutMs?: number },
): Promise<RunResult> {
  const env = Object.fromEntries(Object.entries(options.env).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr), ms: performance.now() - started });
      },
    );
  });
}

/** Run a bundled svc.js with this node. */
export function runBundle(
  bundle: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<RunResult> {
  return run(process.execPath, [bundle, ...args], { env });
}

/**
 * Run a command with its stdio on a real pseudo-terminal (util-linux `script`), for what svc only
 * does for a person at a terminal. stdout and stderr arrive mixed, with CRLF line ends.
 */
export function runOnTty(
  file: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<RunResult> {
  const command = [file, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code: code ?? 1,
        stdout: stdout.replace(/\r\n/g, '\n'),
        stderr,
        ms: performance.now() - started,
      });
    });
  });
}

/** The real reference API (bin/service-api.js) on an ephemeral loopback port. */
export function startApi(env: Record<string, string | undefined>, bin = API_BIN): Promise<StartedProcess> {
  return startProcess(bin, { env: { HOST: '127.0.0.1', PORT: '0', ...env } });
}

export function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Where `npm install -g --prefix <prefix>` puts svc. */
export function svcIn(prefix: string): string {
  return join(prefix, 'bin', 'svc');
}

export function packageFileIn(prefix: string): string {
  return join(prefix, 'lib', 'node_modules', 'service-cli', 'svc.js');
}

/** Any control character other than a newline (what a hostile server might smuggle through). */
export const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
