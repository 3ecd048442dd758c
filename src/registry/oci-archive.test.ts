import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Digest } from './digest.ts';
import { FlatLayoutStore } from './flat-layout-store.ts';
import { packArchive, unpackArchive } from './oci-archive.ts';

const work = mkdtempSync(join(tmpdir(), 'mirror-archive-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function layoutIn(dir: string): Promise<FlatLayoutStore> {
  const store = await FlatLayoutStore.open(dir);
  const config = Buffer.from('{"architecture":"amd64","os":"linux"}');
  await store.putBlob('api', sha256Digest(config), config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      config: { digest: sha256Digest(config), size: config.length },
      layers: [],
    }),
  );
  await store.putManifest('api', 'v1.0.0', manifest, 'application/vnd.oci.image.manifest.v1+json');
  await store.flush();
  return store;
}

describe('oci-archive', () => {
  it('packs the same layout to the same bytes, whatever the files’ times', async () => {
    await layoutIn(join(work, 'a'));
    await layoutIn(join(work, 'b'));
    utimesSync(join(work, 'b', 'index.json'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const one = await packArchive(join(work, 'a'), join(work, 'a.tar'));
    const two = await packArchive(join(work, 'b'), join(work, 'b.tar'));
    expect(readFileSync(join(work, 'a.tar')).equals(readFileSync(join(work, 'b.tar')))).toBe(true);
    expect(one).toEqual(two);
    await unpackArchive(join(work, 'a.tar'), join(work, 'c'));
    const back = await FlatLayoutStore.open(join(work, 'c'));
    expect(back.refNames()).toEqual(['api:v1.0.0']);
  });

  it('fails, never waits, on an archive cut short inside an entry', async () => {
    await layoutIn(join(work, 'd'));
    await packArchive(join(work, 'd'), join(work, 'd.tar'));
    const whole = readFileSync(join(work, 'd.tar'));
    for (const cut of [100, 700, 1500, whole.length - 600, whole.length - 10]) {
      writeFileSync(join(work, 'cut.tar'), whole.subarray(0, cut));
      await expect(unpackArchive(join(work, 'cut.tar'), join(work, `cut-${cut}`))).rejects.toThrow(
        /end of data/,
      );
    }
  });

  it('refuses an entry outside the layout', async () => {
    const tar = pack();
    tar.entry({ name: '../escape', mtime: new Date(0) }, 'x');
    tar.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of tar) chunks.push(chunk as Buffer);
    writeFileSync(join(work, 'bad.tar'), Buffer.concat(chunks));
    await expect(unpackArchive(join(work, 'bad.tar'), join(work, 'bad'))).rejects.toMatchObject({
      code: 'ARCHIVE_ENTRY_REFUSED',
    });
  });
});
