import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleArtifact } from '../../src/service/build/bundle.ts';
import { buildWeb } from '../../src/service/web/build/build-web.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';

const bin = (name: string) => fileURLToPath(new URL(`../../bin/${name}`, import.meta.url));
export const API_BIN = bin('service-api.js');
export const WORKER_BIN = bin('service-worker.js');
export const WEB_BIN = bin('service-web.js');

/** Everything a suite started, stopped and removed in afterAll even when a test failed. */
export class Cleanup {
  private readonly tasks: (() => unknown)[] = [];

  add(task: () => unknown): void {
    this.tasks.push(task);
  }

  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), `sr-verify-${prefix}-`));
    this.add(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  async track(started: Promise<StartedProcess>): Promise<StartedProcess> {
    const proc = await started;
    this.add(() => proc.stop());
    return proc;
  }

  async run(): Promise<void> {
    for (const task of this.tasks.reverse()) {
      try {
        await task();
      } catch {
        // keep cleaning up the rest
      }
    }
  }
}

/** The reference API from a checkout, at SERVICE_VERSION; `env` may add SERVICE_WEB_ROOT and friends. */
export function startApi(cleanup: Cleanup, version: string, env: Record<string, string> = {}) {
  return cleanup.track(
    startProcess(API_BIN, { env: { SERVICE_VERSION: version, HOST: '127.0.0.1', PORT: '0', ...env } }),
  );
}

/**
 * The API as a production image runs it: the esbuild bundle, outside any source checkout, with
 * no SERVICE_VERSION. It has nothing to describe, so it reports `unknown` (spec section 2 rule 4).
 */
export async function startBundledApiWithoutVersion(cleanup: Cleanup) {
  const dir = cleanup.tempDir('api-bundle');
  const outFile = join(dir, 'service-api.mjs');
  await bundleArtifact('api', outFile);
  return cleanup.track(
    startProcess(outFile, { cwd: dir, env: { HOST: '127.0.0.1', PORT: '0', SERVICE_VERSION: undefined } }),
  );
}

export function startWorker(cleanup: Cleanup, version: string) {
  return cleanup.track(
    startProcess(WORKER_BIN, {
      env: { SERVICE_VERSION: version, WORKER_HEALTH_HOST: '127.0.0.1', WORKER_HEALTH_PORT: '0' },
      readyPattern: /health on (?<url>http:\/\/\S+)/,
    }),
  );
}

/** A real Vite build of the web client with `version` baked in ('' gives `unknown`). */
export async function buildWebRoot(cleanup: Cleanup, version: string): Promise<string> {
  const outDir = join(cleanup.tempDir('web'), 'web');
  await buildWeb({ version, outDir });
  return outDir;
}

/** A copy of a build without version.json, like a build that predates the file. */
export function withoutVersionJson(cleanup: Cleanup, root: string): string {
  const copy = join(cleanup.tempDir('web-meta'), 'web');
  cpSync(root, copy, { recursive: true, filter: (src) => !src.endsWith('version.json') });
  return copy;
}

export function startWeb(cleanup: Cleanup, root: string) {
  return cleanup.track(startProcess(WEB_BIN, { env: { HOST: '127.0.0.1', PORT: '0', WEB_ROOT: root } }));
}
