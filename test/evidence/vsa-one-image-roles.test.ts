import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attestRelease, releaseImages } from '../../src/evidence/attest-release.ts';
import { vsasFromStore } from '../../src/evidence/read-vsa.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { signImage } from '../../src/signing/image-signature.ts';
import { generateSigningKeys, parsePrivateKey } from '../../src/signing/keys.ts';
import { judgeVsas } from '../../src/verify/checks/check-vsa.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';

// netbox-docker's shape: one image under a namespace (netboxcommunity/netbox) that three
// services run as web app, worker and housekeeping. A gate sees three containers of one digest:
// one summary vouches for it, whatever the roles, and a namespaced name travels as it is.

const dir = mkdtempSync(join(tmpdir(), 'sr-vsa-roles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = (passphrase: string) =>
  parsePrivateKey(generateSigningKeys(passphrase).privatePem, passphrase, passphrase);

describe('verification summaries of roles run from one image', () => {
  it('sign one summary per image digest, attached once, judged covering every role', async () => {
    const store = openStore(`oci-layout:${dir}`, { cwd: dir, env: {}, insecure: [] });
    const [releaseKey, verifierKey] = [key('release'), key('verifier')];
    const repository = 'netboxcommunity/netbox';
    await pushImage(store, repository, makeImage(), 'v4.1.0');
    const digest = (await store.resolve(repository, 'v4.1.0'))!.digest;
    await signImage(store, releaseKey, { repository, digest });
    const roles = ['netbox', 'netbox-worker', 'netbox-housekeeping'].map((name) => ({ name, repository }));
    const images = await releaseImages(store, roles, 'v4.1.0');
    expect(images).toEqual([{ artifact: 'netbox', repository, digest, children: [] }]);
    const summaries = await attestRelease({
      store,
      releaseKey: releaseKey.publicKey,
      verifierKey,
      verifier: { id: 'https://gate.example/verifier', version: 'test' },
      images,
      policy: { checks: ['signature'], releaseKey: releaseKey.publicKey.keyId, version: 'v4.1.0' },
      passed: true,
      wholeRelease: true,
      timeVerified: new Date().toISOString(),
    });
    expect(summaries.map((s) => [s.resourceUri, s.attached.length])).toEqual([
      [`oci://${repository}@${digest}`, 1],
    ]);
    const digests = [{ artifact: 'netbox', repository, digests: [digest] }];
    const readings = await vsasFromStore(store, verifierKey.publicKey, digests);
    const verdict = judgeVsas(readings, { version: 'v4.1.0', images: digests }, ['signature']);
    expect(verdict.verdicts.map((v) => v.accepted)).toEqual([true]);
    expect(verdict.uncovered).toEqual([]);
    // The release key cannot read it as its own: the summary is the verifier's word only.
    expect((await vsasFromStore(store, releaseKey.publicKey, digests))[0]!.claim).toBeUndefined();
  });
});
