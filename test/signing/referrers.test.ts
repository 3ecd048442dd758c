import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyImage } from '../../src/registry/copy-image.ts';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import { listReferrers, referrersTag, updateFallbackIndex } from '../../src/registry/referrers.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import {
  checkImageSignature,
  SIGNATURE_ARTIFACT_TYPE,
  signImage,
} from '../../src/signing/image-signature.ts';
import { makeImage, makeIndex, pushImage, pushIndex } from '../helpers/make-image.ts';
import { type SigningProject, signingProject } from './fixture.ts';
import { startReferrersFront } from './referrers-front.ts';

// Where signatures live and how they travel: the referrers API when a registry has it, the
// sha256-<hex> tag schema when it does not (docker-registry, the OCI layout), and copyImage
// carrying them between stores.

let p: SigningProject;
let dir: string;
beforeAll(async () => {
  p = await signingProject();
  dir = mkdtempSync(join(tmpdir(), 'sr-referrers-'));
});
afterAll(async () => {
  await p?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('referrers', () => {
  it('docker-registry has no referrers API: signatures are found through the sha256-<hex> tag', async () => {
    const digest = await p.push('svc-fallback');
    const api = await fetch(`http://${p.registry.host}/v2/svc-fallback/referrers/${digest}`);
    await api.body?.cancel();
    expect(api.status).toBe(404);
    const { signature } = await signImage(p.store, p.key, { repository: 'svc-fallback', digest });
    expect((await p.store.referrers('svc-fallback', digest)).map((d) => d.digest)).toEqual([signature]);
    expect((await p.store.resolve('svc-fallback', referrersTag(digest)))?.mediaType).toBe(
      'application/vnd.oci.image.index.v1+json',
    );
  });

  it('uses the referrers API when the registry has one, not the fallback tag', async () => {
    const front = await startReferrersFront(p.registry.host);
    try {
      const store = new RegistryStore({ registry: front.host, env: {} });
      const digest = await pushImage(store, 'svc-api', makeImage({ size: 64 }));
      const { signature } = await signImage(store, p.key, { repository: 'svc-api', digest });
      // Take it out of the fallback index: only the API still lists it.
      await updateFallbackIndex(store, 'svc-api', digest, { remove: [signature] });
      const before = front.apiCalls;
      expect(
        (await listReferrers(store, 'svc-api', digest, SIGNATURE_ARTIFACT_TYPE)).map((d) => d.digest),
      ).toEqual([signature]);
      expect(front.apiCalls).toBe(before + 1);
      expect(
        (await checkImageSignature(store, p.key.publicKey, { repository: 'svc-api', digest })).status,
      ).toBe('valid');
      // The same registry without the API front sees only the (now empty) fallback index.
      expect(
        (await checkImageSignature(p.store, p.key.publicKey, { repository: 'svc-api', digest })).status,
      ).toBe('missing');
    } finally {
      await front.stop();
    }
  });

  it('OCI layout: the signature index is an index.json entry that skopeo reads', async () => {
    const layout = new LayoutStore(join(dir, 'layout'));
    const digest = await pushImage(layout, 'service-api', makeImage({ size: 64 }), 'v1.0.0-rc.1');
    const { signature } = await signImage(layout, p.key, { repository: 'service-api', digest });
    const index = JSON.parse(readFileSync(join(dir, 'layout', 'service-api', 'index.json'), 'utf8'));
    expect(index.manifests).toContainEqual(
      expect.objectContaining({ annotations: { 'org.opencontainers.image.ref.name': referrersTag(digest) } }),
    );
    const raw = execFileSync(
      'skopeo',
      ['inspect', '--raw', `oci:${join(dir, 'layout', 'service-api')}:${referrersTag(digest)}`],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(JSON.parse(raw).manifests.map((d: { digest: string }) => d.digest)).toEqual([signature]);
    expect(
      (await checkImageSignature(layout, p.key.publicKey, { repository: 'service-api', digest })).status,
    ).toBe('valid');
  });

  it('copyImage carries signatures from the OCI layout to the registry and back, still valid', async () => {
    const layout = new LayoutStore(join(dir, 'copy-src'));
    const index = makeIndex([
      makeImage({ architecture: 'amd64', size: 64 }),
      makeImage({ architecture: 'arm64', size: 64 }),
    ]);
    const digest = await pushIndex(layout, 'service-web', index, 'v3.0.0-rc.1');
    await signImage(layout, p.key, { repository: 'service-web', digest });

    const toRegistry = await copyImage(
      layout,
      'service-web',
      'v3.0.0-rc.1',
      p.store,
      'service-web',
      'v3.0.0-rc.1',
    );
    expect(toRegistry).toMatchObject({ descriptor: { digest }, referrers: 1 });
    expect(
      (await checkImageSignature(p.store, p.key.publicKey, { repository: 'service-web', digest })).status,
    ).toBe('valid');

    const back = new LayoutStore(join(dir, 'copy-back'));
    const toLayout = await copyImage(
      p.store,
      'service-web',
      'v3.0.0-rc.1',
      back,
      'service-web',
      'v3.0.0-rc.1',
    );
    expect(toLayout.referrers).toBe(1);
    expect(
      (await checkImageSignature(back, p.key.publicKey, { repository: 'service-web', digest })).status,
    ).toBe('valid');
    // cosign's .sig tag travels too, still verifying.
    for (const store of [p.store, back]) {
      const check = await checkImageSignature(
        store,
        p.key.publicKey,
        { repository: 'service-web', digest },
        { cosign: 'require' },
      );
      expect(check.cosign?.status, store.name).toBe('valid');
    }
    // Copying again adds no duplicate entry to the fallback index.
    await copyImage(p.store, 'service-web', 'v3.0.0-rc.1', back, 'service-web', 'v3.0.0-rc.1');
    expect(await listReferrers(back, 'service-web', digest)).toHaveLength(1);
  });

  it('a signature copied under another repository name does not vouch for the image there', async () => {
    const digest = await p.push('service-worker', 'v4.0.0-rc.1');
    await signImage(p.store, p.key, { repository: 'service-worker', digest });
    const copied = await copyImage(
      p.store,
      'service-worker',
      digest,
      p.store,
      'impostor-worker',
      'v4.0.0-rc.1',
    );
    expect(copied.referrers).toBe(1);
    const check = await checkImageSignature(p.store, p.key.publicKey, {
      repository: 'impostor-worker',
      digest,
    });
    expect(check).toMatchObject({
      status: 'invalid',
      reason: 'the signature is for repository service-worker, not impostor-worker',
    });
  });
});
