import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleArtifact } from '../../src/service/build/bundle.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { API_READY, jsonBody, request } from './support.ts';

// Version resolution runs in the artifact's own source tree, not the caller's: the API is bundled
// (as its image ships it) into a directory and run there with plain node, no tsx.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function startBundle(dir: string, env: Record<string, string> = {}): Promise<StartedProcess> {
  const bundle = join(dir, 'service-api.mjs');
  await bundleArtifact('api', bundle);
  const api = await startProcess(bundle, {
    // Started from another directory on purpose: its working directory must not matter.
    cwd: tmpdir(),
    // Git must not find a repository above the bundle's directory on a machine where the temp
    // directory happens to sit inside one.
    env: { PORT: '0', GIT_CEILING_DIRECTORIES: dirname(dir), ...env },
    readyPattern: API_READY,
  });
  cleanup.push(() => api.stop());
  return api;
}

describe('version source of the bundled API', () => {
  it('is unknown with no SERVICE_VERSION and no git tree, and finds the archive beside the bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-api-bundle-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'service-cli.tar.gz'), 'archive bytes');
    const api = await startBundle(dir);
    expect(api.ready[1]).toBe('unknown');
    expect(api.ready[2]).toBe('none');
    expect(jsonBody(await request(api.url, '/api/version'))).toMatchObject({ version: 'unknown' });
    expect(api.stderr()).toContain('SERVICE_VERSION is unset and there is no source checkout');
    const download = await request(api.url, '/api/cli/download/service-cli.tar.gz');
    expect(download.status).toBe(200);
    expect(download.body.toString()).toBe('archive bytes');
  });

  it('is the git description of its own checkout, commits after the tag included', async () => {
    const repo = GitRepo.create('api-describe-');
    cleanup.push(() => repo.remove());
    repo.commit('first');
    repo.annotatedTag('v1.2.3');
    repo.commit('second');
    const head = repo.commit('third');
    // Untracked files do not make the tree dirty, so the bundle can sit in the checkout as it is.
    const api = await startBundle(repo.dir);
    const expected = `v1.2.3-2-g${head.slice(0, 7)}`;
    expect(api.ready[1]).toBe(expected);
    expect(api.ready[2]).toBe('git');
    expect(jsonBody(await request(api.url, '/api/version'))).toMatchObject({ version: expected });
  });

  it('reports -dirty when tracked files changed, and SERVICE_VERSION wins over git', async () => {
    const repo = GitRepo.create('api-dirty-');
    cleanup.push(() => repo.remove());
    repo.commit('first');
    repo.tag('v2.0.0');
    repo.makeDirty();
    const dirty = await startBundle(repo.dir);
    expect(dirty.ready[1]).toBe('v2.0.0-dirty');
    const pinned = await startBundle(repo.dir, { SERVICE_VERSION: '2.0.0' });
    expect(pinned.ready[2]).toBe('env');
    expect(jsonBody(await request(pinned.url, '/api/version'))).toMatchObject({ version: '2.0.0' });
  });
});
