import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { checkImageSignature, SIGNATURE_ARTIFACT_TYPE } from '../../src/signing/image-signature.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { IMAGES, type SigningProject, signingProject, writeRecord } from './fixture.ts';

// `release sign` as a subprocess against a real docker-registry (distribution 2.8: no referrers
// API, so every signature must be found through the sha256-<hex> fallback tag).

interface SignJson {
  keyId: string;
  dryRun: boolean;
  images: { artifact: string; repository: string; digest: string; status: string; signature?: string }[];
}

let p: SigningProject;
beforeEach(async () => {
  p = await signingProject();
});
afterEach(async () => {
  await p.cleanup();
});

describe('release sign', () => {
  it('signs every image of a tag by digest and attaches an OCI 1.1 referrer with the tag-schema fallback', async () => {
    const digests = await p.pushAll('v1.2.0-rc.1');
    const result = await runRelease(['sign', 'v1.2.0-rc.1', '--json'], { cwd: p.dir, env: p.env });
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<SignJson>(result);
    expect(out.keyId).toBe(p.key.publicKey.keyId);
    expect(out.images.map((i) => [i.artifact, i.digest, i.status])).toEqual([
      ['api', digests.api, 'signed'],
      ['worker', digests.worker, 'signed'],
      ['web', digests.web, 'signed'],
    ]);
    for (const image of out.images) {
      // The referrer manifest, by digest: OCI 1.1 artifact whose subject is the signed image.
      const manifest = await p.store.getManifest(image.repository, image.signature!);
      const parsed = JSON.parse(Buffer.from(manifest!.bytes).toString());
      expect(parsed).toMatchObject({
        mediaType: MEDIA_TYPES.ociManifest,
        artifactType: SIGNATURE_ARTIFACT_TYPE,
        config: { mediaType: MEDIA_TYPES.ociEmpty, size: 2 },
        layers: [{ mediaType: SIGNATURE_ARTIFACT_TYPE }],
        subject: { digest: image.digest },
      });
      // The fallback index lists it, under the tag derived from the subject digest.
      const index = await p.store.getManifest(image.repository, image.digest.replace(':', '-'));
      const listed = JSON.parse(Buffer.from(index!.bytes).toString()).manifests;
      expect(listed).toEqual([
        expect.objectContaining({ digest: image.signature, artifactType: SIGNATURE_ARTIFACT_TYPE }),
      ]);
      // And the signature verifies under the configured public key.
      const check = await checkImageSignature(p.store, p.key.publicKey, image);
      expect(check.status).toBe('valid');
    }
    // The passphrase and the private key never reach the output.
    const printed = result.stdout + result.stderr;
    expect(printed).not.toContain(p.env['RELEASE_SIGNING_PASSPHRASE']);
    for (const line of p.privatePem.split('\n').filter((l) => l.length > 20))
      expect(printed).not.toContain(line);
  });

  it('is idempotent: signing again adds no second signature', async () => {
    const digest = await p.push(IMAGES.api, 'v1.0.0-rc.1');
    const first = await runRelease(['sign', `${IMAGES.api}:v1.0.0-rc.1`, '--json'], {
      cwd: p.dir,
      env: p.env,
    });
    expect(first.code, first.stderr).toBe(0);
    const again = await runRelease(['sign', `${IMAGES.api}@${digest}`, '--json'], { cwd: p.dir, env: p.env });
    expect(again.code, again.stderr).toBe(0);
    expect(jsonOf<SignJson>(again).images).toEqual([
      expect.objectContaining({
        artifact: 'api',
        digest,
        status: 'already-signed',
        signature: jsonOf<SignJson>(first).images[0]!.signature,
      }),
    ]);
    const check = await checkImageSignature(p.store, p.key.publicKey, { repository: IMAGES.api, digest });
    expect(check.signatures).toHaveLength(1);
  });

  it('is readable by skopeo: the referrer and the fallback index are ordinary manifests', async () => {
    const digest = await p.push(IMAGES.web, 'v2.0.0-rc.2');
    const result = await runRelease(['sign', `${IMAGES.web}:v2.0.0-rc.2`, '--json'], {
      cwd: p.dir,
      env: p.env,
    });
    expect(result.code, result.stderr).toBe(0);
    const raw = execFileSync(
      'skopeo',
      [
        'inspect',
        '--raw',
        '--tls-verify=false',
        `docker://${p.registry.host}/${IMAGES.web}:${digest.replace(':', '-')}`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(JSON.parse(raw).manifests[0].digest).toBe(jsonOf<SignJson>(result).images[0]!.signature);
  });

  it('--channel rc signs the record digests and refuses a tag re-pushed since the build', async () => {
    const digests = await p.pushAll('v3.0.0-rc.1');
    writeRecord(p, 'v3.0.0-rc.1', 'rc', digests);
    await p.push(IMAGES.worker, 'v3.0.0-rc.1'); // re-pushed: the tag no longer names what was built
    const moved = await runRelease(['sign', '--channel', 'rc'], { cwd: p.dir, env: p.env });
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain(`worker: service-worker:v3.0.0-rc.1 is sha256:`);
    expect(moved.stderr).toContain(`but the release record built ${digests.worker}`);

    // Put the tag back on the built image: now it signs exactly the recorded digests.
    const built = await p.store.getManifest(IMAGES.worker, digests.worker);
    await p.store.putManifest(IMAGES.worker, 'v3.0.0-rc.1', built!.bytes, MEDIA_TYPES.ociManifest);
    const ok = await runRelease(['sign', '--channel', 'rc', '--json'], { cwd: p.dir, env: p.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(jsonOf<SignJson>(ok).images.map((i) => i.digest)).toEqual([
      digests.api,
      digests.worker,
      digests.web,
    ]);
  });

  it('--channel rc refuses a record that is not a release candidate', async () => {
    writeRecord(p, 'v3.0.0', 'release', {});
    const result = await runRelease(['sign', '--channel', 'rc'], { cwd: p.dir, env: p.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the release record is v3.0.0 (channel release)');
  });

  it('--dry-run resolves digests and unlocks the key, but attaches nothing', async () => {
    const digest = await p.push(IMAGES.api, 'v1.0.0-rc.9');
    const result = await runRelease(['sign', `${IMAGES.api}:v1.0.0-rc.9`, '--dry-run', '--json'], {
      cwd: p.dir,
      env: p.env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(jsonOf<SignJson>(result)).toMatchObject({
      dryRun: true,
      images: [{ digest, status: 'would-sign' }],
    });
    expect(
      (await checkImageSignature(p.store, p.key.publicKey, { repository: IMAGES.api, digest })).status,
    ).toBe('missing');
  });

  it('refuses a wrong passphrase clearly, before touching the registry, without echoing it', async () => {
    const digest = await p.push(IMAGES.api, 'v1.0.0-rc.2');
    const wrong = 'not-the-passphrase-77d0';
    const result = await runRelease(['sign', 'v1.0.0-rc.2', '--json'], {
      cwd: p.dir,
      env: { RELEASE_SIGNING_PASSPHRASE: wrong },
    });
    expect(result.code).toBe(2);
    const error = jsonOf<{ error: { code: string; message: string } }>(result).error;
    expect(error.code).toBe('SIGNING_PASSPHRASE_WRONG');
    expect(error.message).toContain('wrong passphrase in RELEASE_SIGNING_PASSPHRASE');
    expect(result.stdout + result.stderr).not.toContain(wrong);
    expect(
      (await checkImageSignature(p.store, p.key.publicKey, { repository: IMAGES.api, digest })).status,
    ).toBe('missing');
  });

  it('takes the private key from RELEASE_SIGNING_KEY (PEM) and refuses one that does not match signing.publicKey', async () => {
    const other = await signingProject({ privateKeyInConfig: false });
    try {
      await other.push(IMAGES.api, 'v1.0.0-rc.3');
      const fromEnv = await runRelease(['sign', 'service-api:v1.0.0-rc.3'], {
        cwd: other.dir,
        env: { ...other.env, RELEASE_SIGNING_KEY: other.privatePem },
      });
      expect(fromEnv.code, fromEnv.stderr).toBe(0);
      expect(fromEnv.stdout).toMatch(/service-api@sha256:[0-9a-f]{64} {2}signed \(signature sha256:/);
      expect(fromEnv.stdout + fromEnv.stderr).not.toContain('PRIVATE KEY');

      const mismatched = await runRelease(['sign', 'service-api:v1.0.0-rc.3'], {
        cwd: other.dir,
        env: {
          ...other.env,
          RELEASE_SIGNING_KEY: p.privatePem,
          RELEASE_SIGNING_PASSPHRASE: p.env['RELEASE_SIGNING_PASSPHRASE'],
        },
      });
      expect(mismatched.code).toBe(2);
      expect(mismatched.stderr).toContain('does not match signing.publicKey');
      const missing = await runRelease(['sign', 'service-api:v1.0.0-rc.3'], {
        cwd: other.dir,
        env: other.env,
      });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no signing key');
    } finally {
      await other.cleanup();
    }
  });

  it('rejects refs that do not name a configured image or a tag', async () => {
    for (const [args, text] of [
      [['sign', `sha256:${'a'.repeat(64)}`], 'does not say which image'],
      [['sign', 'other-image:v1.0.0'], 'not one of the configured images'],
      [['sign'], 'what to sign?'],
      [['sign', 'v1.0.0', '--channel', 'rc'], 'not both'],
      [['sign', 'service-api:bad tag'], 'neither an image tag'],
    ] as const) {
      const result = await runRelease([...args], { cwd: p.dir, env: p.env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(text);
    }
    const absent = await runRelease(['sign', 'v9.9.9-rc.1'], { cwd: p.dir, env: p.env });
    expect(absent.code).toBe(3);
    expect(absent.stderr).toContain(`api: ${p.registry.host} has no service-api:v9.9.9-rc.1`);
  });
});
