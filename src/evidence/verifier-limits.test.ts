import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LayoutStore } from '../registry/layout-store.ts';
import { referrersTag } from '../registry/referrers.ts';
import { VERIFIER_MAX_BUNDLE_BYTES, VERIFIER_MAX_REFERRERS, verifierLimits } from './attach-evidence.ts';

// Kyverno's SigstoreBundle verifier refuses a bundle over 10 MB and a digest with more than 50
// referrers: the toolkit warns before a cluster refuses. A real layout store holds the referrers.
const SUBJECT = `sha256:${'a'.repeat(64)}`;
let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function storeWithReferrers(count: number): Promise<LayoutStore> {
  dir = await mkdtemp(join(tmpdir(), 'sr-verifier-limits-'));
  const store = new LayoutStore(dir);
  const index = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: Array.from({ length: count }, (_, i) => ({
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: `sha256:${i.toString(16).padStart(64, '0')}`,
      size: 400,
      artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    })),
  };
  await store.putManifest(
    'acme/api',
    referrersTag(SUBJECT),
    new TextEncoder().encode(JSON.stringify(index)),
    'application/vnd.oci.image.index.v1+json',
  );
  return store;
}

describe('verifierLimits', () => {
  it('says nothing at the limits: 50 referrers, a bundle of exactly 10 MB', async () => {
    const store = await storeWithReferrers(VERIFIER_MAX_REFERRERS);
    const target = { repository: 'acme/api', digest: SUBJECT, kind: 'sbom' as const };
    expect(await verifierLimits(store, target, VERIFIER_MAX_BUNDLE_BYTES)).toEqual([]);
  });

  it('warns of a bundle over 10 MB and of a digest with 51 referrers, naming the image', async () => {
    const store = await storeWithReferrers(VERIFIER_MAX_REFERRERS + 1);
    const target = { repository: 'acme/api', digest: SUBJECT, kind: 'sbom' as const };
    const warnings = await verifierLimits(store, target, VERIFIER_MAX_BUNDLE_BYTES + 1);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/the sbom bundle of acme\/api@sha256:aaaaaaaaaaaa is 10\.0 MB: .*over 10 MB/);
    expect(warnings[1]).toMatch(/acme\/api@sha256:aaaaaaaaaaaa has 51 referrers: .*more than 50/);
  });
});
