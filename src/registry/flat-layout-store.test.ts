import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Digest } from './digest.ts';
import { FlatLayoutStore } from './flat-layout-store.ts';

const work = mkdtempSync(join(tmpdir(), 'flat-layout-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MANIFEST = Buffer.from(JSON.stringify({ schemaVersion: 2, config: {}, layers: [] }));
const TYPE = 'application/vnd.oci.image.manifest.v1+json';

describe('FlatLayoutStore tags', () => {
  it('refuses a tag no registry would take, and keeps nothing of it', async () => {
    const store = await FlatLayoutStore.open(join(work, 'bad'));
    for (const tag of ['bad tag', '-v1', '.v1', 'v1/x', 'x'.repeat(129), '']) {
      await expect(store.putManifest('api', tag, MANIFEST, TYPE)).rejects.toMatchObject({
        code: 'TAG_INVALID',
      });
    }
    await store.flush();
    expect(store.refNames()).toEqual([]);
    expect(JSON.parse(readFileSync(join(work, 'bad', 'index.json'), 'utf8')).manifests).toEqual([]);
  });

  it('takes a valid tag, and a digest without naming it', async () => {
    const store = await FlatLayoutStore.open(join(work, 'good'));
    await store.putManifest('api', 'v1.0.0-rc.1', MANIFEST, TYPE);
    await store.putManifest('api', sha256Digest(MANIFEST), MANIFEST, TYPE);
    expect(store.refNames()).toEqual(['api:v1.0.0-rc.1']);
  });
});
