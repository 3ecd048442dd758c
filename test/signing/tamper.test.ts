import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attachArtifact, updateFallbackIndex } from '../../src/registry/referrers.ts';
import { signClaim } from '../../src/signing/bundle.ts';
import {
  checkImageSignature,
  SIGNATURE_ARTIFACT_TYPE,
  signImage,
} from '../../src/signing/image-signature.ts';
import { generateSigningKeys, parsePrivateKey } from '../../src/signing/keys.ts';
import { statementFor } from '../../src/signing/statement.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { IMAGES, type SigningProject, signingProject } from './fixture.ts';

// Each way a release candidate's signatures can be forged or broken, against a real
// docker-registry, refused by `release promote --channel release --from <rc>` before any tag is
// written, with a message naming the artifact and why.

const RC = 'v1.2.0-rc.1';
const RELEASE = ['promote', '--channel', 'release', '--from', RC, '--version', 'v1.2.0', '--json'];
type Artifact = keyof typeof IMAGES;

let p: SigningProject;
let rc: Record<Artifact, string>;
beforeEach(async () => {
  p = await signingProject();
  rc = await p.pushAll(RC);
});
afterEach(async () => {
  await p.cleanup();
});

const image = (artifact: Artifact) => ({ repository: IMAGES[artifact], digest: rc[artifact] });
const signGenuinely = async (...artifacts: Artifact[]) => {
  for (const a of artifacts) await signImage(p.store, p.key, image(a));
};
/** Attach a bundle to an image as a signature referrer, as an attacker with push access could. */
const attach = async (artifact: Artifact, bundle: Uint8Array) => {
  const subject = (await p.store.resolve(IMAGES[artifact], rc[artifact]))!;
  return attachArtifact(p.store, IMAGES[artifact], subject, {
    artifactType: SIGNATURE_ARTIFACT_TYPE,
    layer: { mediaType: SIGNATURE_ARTIFACT_TYPE, bytes: bundle },
  });
};

/** Run the release promotion; assert it refused, wrote no tag, and return the message. */
async function expectRefused(): Promise<string> {
  const result = await runRelease(RELEASE, { cwd: p.dir, env: p.env });
  expect(result.code, result.stderr).toBe(1);
  const error = jsonOf<{ error: { code: string; message: string } }>(result).error;
  expect(error.code).toBe('RC_SIGNATURE_INVALID');
  expect(error.message).toContain(`refusing to release v1.2.0 from ${RC}`);
  for (const repository of Object.values(IMAGES)) {
    expect(await p.store.resolve(repository, 'v1.2.0')).toBeUndefined();
    expect(await p.store.resolve(repository, 'latest')).toBeUndefined();
  }
  expect(result.stdout + result.stderr).not.toContain(p.env['RELEASE_SIGNING_PASSPHRASE']);
  return error.message;
}

const line = (artifact: Artifact, digest = rc[artifact]) => `${artifact} (${IMAGES[artifact]}@${digest}): `;

describe('signatures checked before a release', () => {
  it('control: a genuinely signed rc is released, and the output says it was verified', async () => {
    await signGenuinely('api', 'worker', 'web');
    const result = await runRelease(RELEASE, { cwd: p.dir, env: p.env });
    expect(result.code, result.stderr).toBe(0);
    expect(jsonOf<{ signing: unknown }>(result).signing).toMatchObject({
      status: 'verified',
      keyId: p.key.publicKey.keyId,
      artifacts: { api: { digest: rc.api }, worker: { digest: rc.worker }, web: { digest: rc.web } },
    });
    for (const [artifact, repository] of Object.entries(IMAGES))
      expect((await p.store.resolve(repository, 'v1.2.0'))?.digest).toBe(rc[artifact as Artifact]);
  });

  it('refuses a signature made for another digest', async () => {
    await signGenuinely('worker', 'web');
    const other = await p.push(IMAGES.api); // a genuinely signed image, but not this one
    await attach('api', await signClaim(p.key, { repository: IMAGES.api, digest: other }));
    const message = await expectRefused();
    expect(message).toContain(
      `${line('api')}wrongly signed, the signature is for ${other}, not this image's ${rc.api}`,
    );
    expect(message).not.toContain('worker (');
    expect(message).not.toContain('web (');
  });

  it('refuses a signature by another key', async () => {
    await signGenuinely('api', 'web');
    const stranger = generateSigningKeys('stranger-passphrase');
    const strangerKey = parsePrivateKey(stranger.privatePem, 'stranger-passphrase', 'stranger');
    await signImage(p.store, strangerKey, image('worker'));
    const message = await expectRefused();
    expect(message).toContain(
      `${line('worker')}wrongly signed, signed by another key (${stranger.publicKey.keyId.slice(0, 16)}), not the configured key ${p.key.publicKey.keyId.slice(0, 16)}`,
    );
  });

  it('refuses a modified payload (a genuine signature of another image, edited to claim this one)', async () => {
    await signGenuinely('api', 'worker');
    const other = await p.push(IMAGES.web);
    const genuine = JSON.parse(
      Buffer.from(await signClaim(p.key, { repository: IMAGES.web, digest: other })).toString(),
    );
    genuine.dsseEnvelope.payload = statementFor({ repository: IMAGES.web, digest: rc.web }).toString(
      'base64',
    );
    await attach('web', Buffer.from(JSON.stringify(genuine)));
    const message = await expectRefused();
    expect(message).toContain(`${line('web')}wrongly signed, the signature does not match its payload`);
    expect(message).toContain('the payload was modified');
  });

  it('refuses when the signature manifest was deleted from the registry', async () => {
    await signGenuinely('api', 'worker', 'web');
    const [signature] = (await checkImageSignature(p.store, p.key.publicKey, image('api'))).signatures;
    const deleted = await fetch(`http://${p.registry.host}/v2/${IMAGES.api}/manifests/${signature!.digest}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(202);
    const message = await expectRefused();
    expect(message).toContain(`${line('api')}unsigned, its signature was deleted`);
  });

  it('refuses when the signature was taken out of the referrers index', async () => {
    await signGenuinely('api', 'worker', 'web');
    const [signature] = (await checkImageSignature(p.store, p.key.publicKey, image('worker'))).signatures;
    await updateFallbackIndex(p.store, IMAGES.worker, rc.worker, { remove: [signature!.digest] });
    const message = await expectRefused();
    expect(message).toContain(`${line('worker')}unsigned, no signature is attached to ${rc.worker}`);
  });

  it('refuses an rc tag re-pushed to an unsigned image', async () => {
    await signGenuinely('api', 'worker', 'web');
    const repushed = await p.push(IMAGES.worker, RC);
    expect(repushed).not.toBe(rc.worker);
    const message = await expectRefused();
    expect(message).toContain(`${line('worker', repushed)}unsigned, no signature is attached to ${repushed}`);
  });

  it('refuses a signature referrer whose subject is another image, listed in this image’s index', async () => {
    await signGenuinely('api', 'worker', 'web');
    const other = await p.push(IMAGES.api);
    await signImage(p.store, p.key, { repository: IMAGES.api, digest: other });
    const [foreign] = (
      await checkImageSignature(p.store, p.key.publicKey, { repository: IMAGES.api, digest: other })
    ).signatures;
    const [own] = (await checkImageSignature(p.store, p.key.publicKey, image('api'))).signatures;
    const listed = (await p.store.resolve(IMAGES.api, foreign!.digest))!;
    await updateFallbackIndex(p.store, IMAGES.api, rc.api, {
      add: [{ ...listed, artifactType: SIGNATURE_ARTIFACT_TYPE }],
      remove: [own!.digest],
    });
    const message = await expectRefused();
    expect(message).toContain(
      `${line('api')}wrongly signed, signature ${foreign!.digest.slice(0, 19)} is attached to ${other}`,
    );
  });

  it('names every bad artifact in one refusal', async () => {
    await signGenuinely('web');
    const message = await expectRefused();
    expect(message).toContain(`${line('api')}unsigned`);
    expect(message).toContain(`${line('worker')}unsigned`);
    expect(message).not.toContain('web (');
  });
});
