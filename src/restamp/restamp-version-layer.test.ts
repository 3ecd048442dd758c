import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveSignatureValid, signArchive } from '../archives/archive-signature.ts';
import { createLayer, createLayerFromTar, type Layer, packTar } from '../oci-image/layer.ts';
import { buildCliArchive } from '../service/svc/build/build-cli-archive.ts';
import { readVersionLayerFiles, restampVersionLayer } from './restamp-version-layer.ts';

const html = (v: string) =>
  `<!doctype html><head><meta charset="utf-8" />\n<meta name="service-client-version" content="${v}" /></head>`;

async function webLayer(version: string, extra: { path: string; content: string }[] = []) {
  return createLayer(
    [
      { type: 'file', path: '/app/web/index.html', content: html(version) },
      { type: 'file', path: '/app/web/version.json', content: `${JSON.stringify({ version })}\n` },
      ...extra.map((e) => ({ type: 'file' as const, ...e })),
    ],
    1_700_000_000,
  );
}
const FILES = ['/app/web/index.html', '/app/web/version.json'];

describe('restampVersionLayer', () => {
  it('re-writes version.json and the meta tag, and equals the layer a build of that version makes', async () => {
    const rc = await webLayer('v1.0.0-rc.1');
    const out = await restampVersionLayer(rc.bytes, FILES, 'v1.0.0');
    const built = await webLayer('v1.0.0');
    expect(out.digest).toBe(built.digest);
    expect(gunzipSync(out.bytes).toString('latin1')).toContain('content="v1.0.0"');
    // Deterministic: the same input always gives the same bytes.
    expect((await restampVersionLayer(rc.bytes, FILES, 'v1.0.0')).digest).toBe(out.digest);
  });

  it("keeps the owners of the layer's folders and files (a COPY --chown), as a build of that version has them", async () => {
    const owned = (version: string) =>
      createLayer(
        [
          { type: 'dir', path: '/app', mode: 0o755 },
          { type: 'dir', path: '/app/web', mode: 0o750, uid: 1000, gid: 1000 },
          { type: 'file', path: '/app/web/index.html', uid: 1000, gid: 1000, content: html(version) },
          {
            type: 'file',
            path: '/app/web/version.json',
            uid: 1000,
            gid: 1000,
            content: `{"version":"${version}"}\n`,
          },
        ],
        1_700_000_000,
      );
    const out = await restampVersionLayer((await owned('v1.0.0-rc.1')).bytes, FILES, 'v1.0.0');
    expect(out.digest).toBe((await owned('v1.0.0')).digest);
    expect(out.digest).not.toBe((await webLayer('v1.0.0')).digest);
  });

  it('adds no folder the rc layer left out (a layer of files alone stays one)', async () => {
    const filesAlone = async (version: string) =>
      createLayerFromTar(
        await packTar(
          [
            {
              type: 'file',
              path: '/app/web/version.json',
              uid: 1000,
              gid: 1000,
              content: `{"version":"${version}"}\n`,
            },
          ],
          1_700_000_000,
          { parents: false },
        ),
      );
    const out = await restampVersionLayer(
      (await filesAlone('v1.0.0-rc.1')).bytes,
      ['/app/web/version.json'],
      'v1.0.0',
    );
    expect(out.digest).toBe((await filesAlone('v1.0.0')).digest);
  });

  it('refuses a layer holding a file its label does not list, or missing one it lists', async () => {
    const smuggled = await webLayer('v1.0.0-rc.1', [{ path: '/app/web/evil.js', content: 'x' }]);
    await expect(restampVersionLayer(smuggled.bytes, FILES, 'v1.0.0')).rejects.toThrow(
      /holds \/app\/web\/evil\.js, which its label does not list/,
    );
    const rc = await webLayer('v1.0.0-rc.1');
    await expect(restampVersionLayer(rc.bytes, [...FILES, '/app/web/other.json'], 'v1.0.0')).rejects.toThrow(
      /has no \/app\/web\/other\.json/,
    );
  });

  it('refuses a page without exactly one service-client-version meta tag', async () => {
    const twoMetas = await createLayer(
      [{ type: 'file', path: '/app/index.html', content: html('a') + html('b') }],
      0,
    );
    await expect(restampVersionLayer(twoMetas.bytes, ['/app/index.html'], 'v1.0.0')).rejects.toThrow(
      /2 service-client-version <meta> tags/,
    );
  });
});

describe('restampVersionLayer with a signed CLI archive', () => {
  const ARCHIVE = '/app/service-cli.tar.gz';
  const SIGNATURE = `${ARCHIVE}.sig`;
  const pair = () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    return { privateKey, publicKey };
  };
  const release = pair();
  let stage: string;

  beforeAll(() => {
    stage = mkdtempSync(join(tmpdir(), 'restamp-sig-'));
  });
  afterAll(() => rmSync(stage, { recursive: true, force: true }));

  async function apiLayer(archive: Buffer, signature: string) {
    return createLayer(
      [
        { type: 'file', path: ARCHIVE, content: archive },
        { type: 'file', path: SIGNATURE, content: `${signature}\n` },
      ],
      1_700_000_000,
    );
  }
  async function filesOf(layer: Layer) {
    return readVersionLayerFiles(layer.bytes);
  }

  it('re-signs the re-stamped svc archive, deterministically, and the rc signature would not verify it', async () => {
    const built = await buildCliArchive({
      version: 'v1.0.0-rc.1',
      outFile: join(stage, 'rc.tgz'),
      signing: {
        publicKeyPem: release.publicKey.export({ type: 'spki', format: 'pem' }) as string,
        privateKey: release.privateKey,
      },
    });
    const bytes = readFileSync(built.path);
    const rcSignature = readFileSync(built.signaturePath!, 'utf8').trim();
    expect(archiveSignatureValid(bytes, rcSignature, release.publicKey)).toBe(true);
    const rc = await apiLayer(bytes, rcSignature);
    const paths: string[] = [];
    const sign = (archive: Buffer, path: string) => {
      paths.push(path);
      return signArchive(archive, release.privateKey);
    };
    const out = await restampVersionLayer(rc.bytes, [ARCHIVE], 'v1.0.0', sign);
    const files = await filesOf(out);
    const archive = files.get(ARCHIVE)!;
    const signature = files.get(SIGNATURE)!.toString('utf8').trim();
    expect(paths).toEqual([ARCHIVE]);
    expect(archive.equals(bytes)).toBe(false);
    expect(archiveSignatureValid(archive, signature, release.publicKey)).toBe(true);
    expect(archiveSignatureValid(archive, rcSignature, release.publicKey)).toBe(false);
    expect(signature).not.toBe(rcSignature);
    // The same rc, version and key give the same layer: a re-run re-stamps to the same digest.
    expect((await restampVersionLayer(rc.bytes, [ARCHIVE], 'v1.0.0', sign)).digest).toBe(out.digest);
    // Without a signer the re-stamp is refused rather than shipping the rc's now-wrong signature.
    await expect(restampVersionLayer(rc.bytes, [ARCHIVE], 'v1.0.0')).rejects.toMatchObject({
      code: 'ARCHIVE_SIGNING_KEY_MISSING',
      exitCode: 1,
    });
  }, 60_000);

  it('keeps a CLI that is not an npm package byte-identical, with its signature, and needs no key', async () => {
    // A Python sdist's shape: no package/ folder (such a CLI is rebuilt from the rc, not here).
    const dir = join(stage, 'py', 'acme-cli-1.0.0');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "acme-cli"\nversion = "1.0.0"\n');
    execFileSync('tar', [
      '-czf',
      join(stage, 'py', 'sdist.tar.gz'),
      '-C',
      join(stage, 'py'),
      'acme-cli-1.0.0',
    ]);
    const bytes = readFileSync(join(stage, 'py', 'sdist.tar.gz'));
    const signature = signArchive(bytes, release.privateKey);
    const rc = await apiLayer(bytes, signature);
    const out = await restampVersionLayer(rc.bytes, [ARCHIVE], 'v1.0.0');
    expect(out.digest).toBe(rc.digest);
  }, 60_000);

  it('refuses a .sig that belongs to no listed archive', async () => {
    const layer = await createLayer(
      [
        { type: 'file', path: '/app/web/version.json', content: '{"version":"v1.0.0-rc.1"}' },
        { type: 'file', path: '/app/web/version.json.sig', content: 'x' },
      ],
      0,
    );
    await expect(restampVersionLayer(layer.bytes, ['/app/web/version.json'], 'v1.0.0')).rejects.toThrow(
      /holds \/app\/web\/version\.json\.sig, which its label does not list/,
    );
  });
});
