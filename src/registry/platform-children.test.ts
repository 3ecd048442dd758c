import { describe, expect, it } from 'vitest';
import { matchPlatforms, platformChildren } from './platform-children.ts';
import { MEDIA_TYPES } from './store.ts';

const d = (n: number) => `sha256:${String(n).repeat(64)}`;
const index = (manifests: unknown[]) => Buffer.from(JSON.stringify({ schemaVersion: 2, manifests }));
const image = (digest: string, architecture: string, extra: Record<string, string> = {}) => ({
  mediaType: MEDIA_TYPES.ociManifest,
  digest,
  size: 1,
  platform: { os: 'linux', architecture, ...extra },
});

describe('platformChildren', () => {
  it('lists the platform images of an index, in its order, variant included', () => {
    expect(platformChildren(index([image(d(1), 'amd64'), image(d(2), 'arm64', { variant: 'v8' })]))).toEqual([
      { platform: 'linux/amd64', digest: d(1) },
      { platform: 'linux/arm64/v8', digest: d(2) },
    ]);
  });

  it('leaves out attestation manifests and other artifacts: nothing runs them', () => {
    const attestation = { ...image(d(3), 'unknown'), platform: { os: 'unknown', architecture: 'unknown' } };
    const artifact = { mediaType: 'application/vnd.example+json', digest: d(4), size: 1 };
    expect(platformChildren(index([image(d(1), 'amd64'), attestation, artifact]))).toEqual([
      { platform: 'linux/amd64', digest: d(1) },
    ]);
  });

  it('is undefined for a single-platform image or bytes that are not JSON', () => {
    expect(platformChildren(Buffer.from(JSON.stringify({ schemaVersion: 2, layers: [] })))).toBeUndefined();
    expect(platformChildren(Buffer.from('not json'))).toBeUndefined();
  });
});

describe('matchPlatforms', () => {
  const rc = [
    { platform: 'linux/amd64', digest: d(1) },
    { platform: 'linux/arm64', digest: d(2) },
  ];

  it('pairs each rc child with the release child of its platform, whatever the release order', () => {
    const release = [
      { platform: 'linux/arm64', digest: d(4) },
      { platform: 'linux/amd64', digest: d(3) },
    ];
    expect(matchPlatforms(rc, release)).toEqual({
      pairs: [
        { platform: 'linux/amd64', rc: d(1), release: d(3) },
        { platform: 'linux/arm64', rc: d(2), release: d(4) },
      ],
      missing: [],
      extra: [],
    });
  });

  it('names a platform of the rc the release lacks, and one the rc never had', () => {
    const release = [
      { platform: 'linux/amd64', digest: d(3) },
      { platform: 'linux/s390x', digest: d(5) },
    ];
    expect(matchPlatforms(rc, release)).toMatchObject({
      pairs: [{ platform: 'linux/amd64' }],
      missing: ['linux/arm64'],
      extra: ['linux/s390x'],
    });
  });
});
