import { createHash, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachEvidence, readEvidence } from '../../src/evidence/attach-evidence.ts';
import { imageSubject, PREDICATE, sbomStatement, statementBytes } from '../../src/evidence/statements.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { cosignTagManifest } from '../../src/signing/cosign-formats.ts';
import { checkImageSignature, signImage } from '../../src/signing/image-signature.ts';
import { generateSigningKeys, parsePrivateKey } from '../../src/signing/keys.ts';
import {
  cosignAttestations,
  cosignSignatures,
  type Json,
  type PlainRegistry,
  plainRegistry,
  referrersOf,
  verifyBundleWithSigstoreJs,
} from '../helpers/independent-verifier.ts';
import { makeImage, makeIndex, pushImage, pushIndex } from '../helpers/make-image.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { Cleanup, startApi, startWorker } from '../verify/support.ts';
import { IMAGES, type SigningProject, signingProject } from './fixture.ts';

// Cosign's own formats beside the Sigstore bundles, on one real docker-registry: `release sign`
// writes `sha256-<hex>.sig` for an index and every platform child, evidence goes into `.att` as
// DSSE layers, every bundle referrer is typed as a bundle; each checked by a verifier that shares
// no code with the toolkit (plain HTTP, node:crypto, sigstore-js). A tampered `.sig` is refused by
// `release verify` (exit 1), naming the cosign signature.

const TAG = 'v4.1.0';
const BUNDLE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
const cleanup = new Cleanup();
let p: SigningProject;
let plain: PlainRegistry;
let index: ReturnType<typeof makeIndex>;
let worker: string;
let web: string;
let urls: { api: string; worker: string };

beforeAll(async () => {
  p = await signingProject();
  cleanup.add(() => p.cleanup());
  plain = plainRegistry(p.registry.host);
  index = makeIndex([
    makeImage({ size: 64, architecture: 'amd64' }),
    makeImage({ size: 64, architecture: 'arm64' }),
  ]);
  await pushIndex(p.store, IMAGES.api, index, TAG);
  worker = await pushImage(p.store, IMAGES.worker, makeImage({ size: 64 }), TAG);
  web = await pushImage(p.store, IMAGES.web, makeImage({ size: 64 }), TAG);
  const [api, workerUrl] = await Promise.all([
    startApi(cleanup, TAG).then((s) => s.url),
    startWorker(cleanup, TAG).then((s) => s.url),
  ]);
  urls = { api, worker: workerUrl };
}, 120_000);
afterAll(() => cleanup.run(), 60_000);

describe('cosign signatures beside the bundles', () => {
  it('release sign writes a .sig for the index and each platform child, each verifying with node:crypto', async () => {
    const result = await runRelease(['sign', TAG], { cwd: p.dir, env: p.env });
    expect(result.code, result.stderr).toBe(0);
    const pem = p.key.publicKey.pem;
    const signed = [
      [IMAGES.api, index.digest],
      ...index.images.map((i) => [IMAGES.api, i.descriptor.digest]),
      [IMAGES.worker, worker],
      [IMAGES.web, web],
    ] as const;
    for (const [repository, digest] of signed) {
      const claims = await cosignSignatures(plain, repository, digest, pem);
      expect(claims, `${repository}@${digest}`).toHaveLength(1);
      // The payload exactly as cosign marshals it: the image by its pull name, no annotations.
      const sig = (await plain.manifest(repository, `${digest.replace(':', '-')}.sig`))!;
      const payload = (await plain.blob(repository, sig.json.layers[0].digest)).toString('utf8');
      expect(payload).toBe(
        `{"critical":{"identity":{"docker-reference":"${p.registry.host}/${repository}"},"image":{"docker-manifest-digest":"${digest}"},"type":"cosign container image signature"},"optional":null}`,
      );
      expect(sig.json).toMatchObject({
        mediaType: MEDIA_TYPES.ociManifest,
        config: { mediaType: MEDIA_TYPES.ociConfig },
        layers: [{ mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json' }],
      });
      // Every bundle referrer is typed as a Sigstore bundle and says its kind in the annotation,
      // and sigstore-js verifies it with the public key alone.
      const referrers = await referrersOf(plain, repository, digest);
      expect(referrers).toHaveLength(1);
      for (const { descriptor, manifest } of referrers) {
        expect(descriptor.artifactType).toBe(BUNDLE);
        expect(manifest.annotations['dev.sigstore.bundle.predicateType']).toBe(
          'https://sigstore.dev/cosign/sign/v1',
        );
        const bundle = JSON.parse((await plain.blob(repository, manifest.layers[0].digest)).toString('utf8'));
        const statement = await verifyBundleWithSigstoreJs(bundle, pem);
        expect(statement.subject[0].digest.sha256).toBe(digest.slice('sha256:'.length));
      }
    }
    // Signing again adds no second signature to any tag.
    expect((await runRelease(['sign', TAG], { cwd: p.dir, env: p.env })).code).toBe(0);
    const again = await plain.manifest(IMAGES.api, `${index.digest.replace(':', '-')}.sig`);
    expect(again!.json.layers).toHaveLength(1);
  });

  it('signing.formats without legacy writes no .sig', async () => {
    const digest = await pushImage(p.store, IMAGES.web, makeImage({ size: 64 }), 'bundle-only');
    await signImage(p.store, p.key, { repository: IMAGES.web, digest }, { formats: ['bundle'] });
    expect(await plain.manifest(IMAGES.web, `${digest.replace(':', '-')}.sig`)).toBeUndefined();
    expect(
      (await checkImageSignature(p.store, p.key.publicKey, { repository: IMAGES.web, digest })).status,
    ).toBe('valid');
    const strict = await checkImageSignature(
      p.store,
      p.key.publicKey,
      { repository: IMAGES.web, digest },
      { cosign: 'require' },
    );
    expect(strict).toMatchObject({ status: 'missing', reason: expect.stringContaining('.sig') });
  });
});

describe('attestations in .att and as bundle referrers', () => {
  it('an SBOM and a provenance go into one .att (DSSE layers, predicateType) and verify independently', async () => {
    const target = { repository: IMAGES.worker, digest: worker };
    const sbom = sbomStatement(
      IMAGES.worker,
      worker,
      JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6' }),
    );
    const provenance = statementBytes([imageSubject(IMAGES.worker, worker)], PREDICATE.provenance, {
      buildDefinition: {},
    });
    for (let round = 0; round < 2; round++) {
      await attachEvidence(p.store, p.key, { ...target, kind: 'sbom' }, sbom);
      await attachEvidence(p.store, p.key, { ...target, kind: 'provenance' }, provenance);
    }
    const pem = p.key.publicKey.pem;
    // Twice attached, once each: the .att holds two layers, both verifying under the key.
    expect((await cosignAttestations(plain, IMAGES.worker, worker, pem)).sort()).toEqual(
      [PREDICATE.provenance, PREDICATE.sbom].sort(),
    );
    const att = await plain.manifest(IMAGES.worker, `${worker.replace(':', '-')}.att`);
    expect(att!.json.layers.map((l: Json) => [l.mediaType, l.annotations])).toEqual([
      [
        'application/vnd.dsse.envelope.v1+json',
        { 'dev.cosignproject.cosign/signature': '', predicateType: PREDICATE.sbom },
      ],
      [
        'application/vnd.dsse.envelope.v1+json',
        { 'dev.cosignproject.cosign/signature': '', predicateType: PREDICATE.provenance },
      ],
    ]);
    // The bundle referrers: signature + SBOM + provenance, all of the bundle artifact type, told
    // apart by their predicate type annotation, each verified by sigstore-js.
    const referrers = await referrersOf(plain, IMAGES.worker, worker);
    expect(referrers.map((r) => r.descriptor.artifactType)).toEqual([BUNDLE, BUNDLE, BUNDLE]);
    expect(
      referrers.map((r) => r.descriptor.annotations['dev.sigstore.bundle.predicateType']).sort(),
    ).toEqual(['https://sigstore.dev/cosign/sign/v1', PREDICATE.provenance, PREDICATE.sbom].sort());
    for (const { manifest } of referrers) {
      const bundle = JSON.parse(
        (await plain.blob(IMAGES.worker, manifest.layers[0].digest)).toString('utf8'),
      );
      await verifyBundleWithSigstoreJs(bundle, pem);
    }
    // Our own reader still tells the kinds apart.
    const read = await readEvidence(p.store, p.key.publicKey, { ...target, kind: 'sbom' });
    expect(read.map((e) => e.status)).toEqual(['valid']);
  });
});

describe('a tampered .sig', () => {
  const verify = () =>
    runRelease(
      ['verify', '--url', urls.api, '--worker-url', urls.worker, '--no-cli', '--require-signature', '--json'],
      { cwd: p.dir },
    );

  it('is refused by release verify (exit 1), as is one whose signature another key made over a changed payload', async () => {
    // Before: signed by `release sign` above, in step.
    const before = await verify();
    expect(before.code, before.stdout + before.stderr).toBe(0);
    const tag = `${worker.replace(':', '-')}.sig`;
    const original = (await plain.manifest(IMAGES.worker, tag))!;
    const layer = original.json.layers[0];
    const payload = await plain.blob(IMAGES.worker, layer.digest);
    const other = index.images[0]!.descriptor.digest;
    const stranger = parsePrivateKey(
      generateSigningKeys('x-passphrase').privatePem,
      'x-passphrase',
      'stranger',
    );
    const changed = Buffer.from(payload.toString('utf8').replace(worker, other));
    const cases = [
      // The payload changed under the same signature annotation.
      { payload: changed, signature: layer.annotations['dev.cosignproject.cosign/signature'] },
      // A flipped signature over the real payload.
      { payload, signature: Buffer.from('MEUCIQ' + 'A'.repeat(90)).toString('base64') },
      // Another key's signature over a changed payload.
      { payload: changed, signature: sign('sha256', changed, stranger.privateKey).toString('base64') },
    ];
    for (const tampered of cases) {
      await p.store.putBlob(IMAGES.worker, digestOf(tampered.payload), tampered.payload);
      const { manifest, config } = cosignTagManifest([
        {
          mediaType: layer.mediaType,
          bytes: tampered.payload,
          annotations: { 'dev.cosignproject.cosign/signature': tampered.signature },
        },
      ]);
      await p.store.putBlob(IMAGES.worker, digestOf(config), config);
      await p.store.putManifest(IMAGES.worker, tag, manifest, MEDIA_TYPES.ociManifest);
      const result = await verify();
      expect(result.code, result.stdout + result.stderr).toBe(1);
      const report = jsonOf<{ signatures: { artifact: string; status: string; reason: string }[] }>(result);
      const row = report.signatures.find((s) => s.artifact === 'worker')!;
      expect(row.status).toBe('invalid');
      expect(row.reason).toContain(`cosign signature ${tag}`);
      expect(row.reason).toMatch(/does not match its payload|another key/);
    }
    // Put back: verify passes again (the bundle was never touched).
    await p.store.putManifest(IMAGES.worker, tag, original.bytes, MEDIA_TYPES.ociManifest);
    expect((await verify()).code).toBe(0);
  });
});

function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
