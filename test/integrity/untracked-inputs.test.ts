import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import { fixtureProject, layerFiles } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';

// An untracked file where an image takes its files from (fixtures/acme-oci's `worker/`) makes
// the tree dirty: the rc stamp and the rc build refuse, naming it; a dev stamp gets `-dirty`; an
// ignored file stays ignored; and the file never reaches a layer.

const RC = 'v1.0.0-rc.1';

describe('untracked files in an artifact input', () => {
  let repo: GitRepo;
  const evil = () => join(repo.dir, 'worker', 'evil.mjs');
  const release = (args: string[]): Promise<RunResult> =>
    runRelease([...args, '--json'], { cwd: repo.dir, timeoutMs: 240_000 });
  const errorOf = (result: RunResult) => jsonOf<{ error: { code: string; message: string } }>(result).error;

  beforeAll(() => {
    repo = fixtureProject('acme-oci');
    repo.commit('acme');
    repo.tag(RC);
  });
  afterAll(() => repo?.remove());

  it('refuses an rc stamp, naming the file, and stamps dev as -dirty', async () => {
    writeFileSync(evil(), 'console.log("not in the tag")\n');
    const refused = await release(['stamp', '--channel', 'rc']);
    expect(refused.code).toBe(1);
    expect(errorOf(refused)).toMatchObject({ code: 'CHANNEL_REFUSED' });
    expect(errorOf(refused).message).toContain('worker/evil.mjs');

    const dev = await release(['stamp']);
    expect(dev.code, dev.stderr).toBe(0);
    expect(jsonOf(dev)).toMatchObject({ version: `${RC}-dirty`, channel: 'dev', dirty: true });
    expect(jsonOf<{ warnings: string[] }>(dev).warnings.join('\n')).toContain('worker/evil.mjs');
  });

  it('leaves ignored files and files outside the inputs alone', async () => {
    rmSync(evil());
    mkdirSync(join(repo.dir, 'worker', 'dist'), { recursive: true });
    writeFileSync(join(repo.dir, 'worker', 'dist', 'ignored.mjs'), '// ignored by dist/\n');
    writeFileSync(join(repo.dir, 'notes.txt'), 'not an input\n');
    const clean = await release(['stamp', '--channel', 'rc']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(jsonOf(clean)).toMatchObject({ version: RC, channel: 'rc', dirty: false });
  });

  it('refuses the rc build when the file appears after the stamp; it never reaches a layer', async () => {
    writeFileSync(evil(), 'console.log("not in the tag")\n');
    const refused = await release(['build', '--engine', 'oci']);
    expect(refused.code).toBe(1);
    expect(errorOf(refused)).toMatchObject({ code: 'UNTRACKED_INPUTS' });
    expect(errorOf(refused).message).toContain('worker/evil.mjs');
    const store = openStore('oci-layout:.release/oci', { cwd: repo.dir, env: {} });
    expect(await store.listTags('acme-worker').catch(() => [])).toEqual([]);

    rmSync(evil());
    const built = await release(['build', '--engine', 'oci']);
    expect(built.code, built.stderr).toBe(0);
    const digest = jsonOf<{ images: Record<string, { digest: string }> }>(built).images['worker']!.digest;
    const manifest = JSON.parse(
      Buffer.from((await store.getManifest('acme-worker', digest))!.bytes).toString('utf8'),
    ) as { layers: { digest: string }[] };
    const paths: string[] = [];
    for (const layer of manifest.layers.slice(1))
      paths.push(...(await layerFiles(await store.getBlob('acme-worker', layer.digest))).keys());
    expect(paths).toContain('srv/worker/main.mjs');
    expect(paths.some((path) => path.includes('evil'))).toBe(false);
  }, 240_000);
});
