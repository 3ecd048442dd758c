import { describe, expect, it } from 'vitest';
import { VSA_ARTIFACT_TYPE } from '../evidence/vsa.ts';
import type { MirrorSet, SetManifest } from './mirror-set.ts';
import { isVsaReferrer, withoutVsas } from './vsa-referrers.ts';

const d = (c: string) => `sha256:${c.repeat(64)}`;
const EMPTY = d('e');
const referrer = (digest: string, artifactType: string, layer: string): SetManifest => ({
  repository: 'acme-api',
  digest,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  bytes: Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      artifactType,
      config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: EMPTY, size: 2 },
      layers: [{ mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json', digest: layer, size: 10 }],
      subject: { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: d('a'), size: 100 },
    }),
  ),
  role: 'referrer',
  subject: d('a'),
});
const set: MirrorSet = {
  version: 'v1.0.0',
  dropped: [],
  images: [],
  manifests: [
    referrer(d('1'), 'application/vnd.dev.sigstore.bundle.v0.3+json', d('b')),
    referrer(d('2'), VSA_ARTIFACT_TYPE, d('c')),
  ],
  blobs: [
    { repository: 'acme-api', digest: EMPTY, size: 2 },
    { repository: 'acme-api', digest: d('b'), size: 10 },
    { repository: 'acme-api', digest: d('c'), size: 10 },
  ],
};

describe('withoutVsas', () => {
  it('drops the summaries and the blobs only they used, keeps what a signature shares', () => {
    expect(set.manifests.map(isVsaReferrer)).toEqual([false, true]);
    const { set: kept, dropped } = withoutVsas(set);
    expect(dropped).toBe(1);
    expect(kept.manifests.map((m) => m.digest)).toEqual([d('1')]);
    expect(kept.blobs.map((b) => b.digest)).toEqual([EMPTY, d('b')]);
  });

  it('returns the same set when it carries none', () => {
    const plain = { ...set, manifests: [set.manifests[0]!] };
    expect(withoutVsas(plain)).toEqual({ set: plain, dropped: 0 });
  });
});
