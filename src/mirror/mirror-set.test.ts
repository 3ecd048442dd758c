import { describe, expect, it } from 'vitest';
import { latestRefusal, type MirrorSet, releaseSetMismatch, type SetImage, tagWrites } from './mirror-set.ts';

const D = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
const image = (repository: string, tag: string, digest: string, children: string[] = []): SetImage => ({
  artifact: repository,
  repository,
  tag,
  digest,
  children,
});
const set = (images: SetImage[]): MirrorSet => ({
  version: 'v2.0.0',
  images,
  manifests: [],
  blobs: [],
  dropped: [],
});

describe('tagWrites', () => {
  const images = [
    image('api', 'v2.0.0', D(1)),
    image('web', 'v2.0.0', D(2)),
    image('api', 'v2.0.0-rc.1', D(3)),
  ];

  it('writes the rc tags, then the release tags, and latest only when asked, last', () => {
    expect(tagWrites(set(images), false).map((w) => `${w.repository}:${w.tag}`)).toEqual([
      'api:v2.0.0-rc.1',
      'api:v2.0.0',
      'web:v2.0.0',
    ]);
    expect(tagWrites(set(images), true).map((w) => `${w.repository}:${w.tag}`)).toEqual([
      'api:v2.0.0-rc.1',
      'api:v2.0.0',
      'web:v2.0.0',
      'api:latest',
      'web:latest',
    ]);
    expect(tagWrites(set(images), true).at(-1)).toEqual({ repository: 'web', tag: 'latest', digest: D(2) });
  });
});

describe('latestRefusal', () => {
  it('moves latest for the highest stable version in the target only', () => {
    expect(latestRefusal('v2.0.0', ['v1.9.0', 'v2.1.0-rc.1', 'latest'])).toBeUndefined();
    expect(latestRefusal('v2.0.0', ['v2.0.1'])).toContain('v2.0.1 in the target is higher');
    expect(latestRefusal('v2.0.0-rc.1', [])).toContain('not a stable release');
  });
});

describe('releaseSetMismatch', () => {
  const loading = [image('api', 'v2.0.0', D(1), [D(11), D(12)]), image('web', 'v2.0.0', D(2))];
  const claim = {
    api: { repository: 'api', digest: D(1), children: [D(12), D(11)] },
    web: { repository: 'web', digest: D(2) },
  };

  it('accepts a set naming exactly the images loaded', () => {
    expect(releaseSetMismatch(claim, loading)).toBeUndefined();
  });

  it('names an image the set lacks, one more, another digest and other children', () => {
    expect(releaseSetMismatch({ api: claim.api }, loading)).toContain(
      `web@${D(2)} is not in the release set`,
    );
    expect(
      releaseSetMismatch({ ...claim, worker: { repository: 'worker', digest: D(3) } }, loading),
    ).toContain('worker (worker@');
    expect(releaseSetMismatch({ ...claim, web: { repository: 'web', digest: D(4) } }, loading)).toContain(
      `web is ${D(2)}, the release set names ${D(4)}`,
    );
    expect(releaseSetMismatch({ ...claim, api: { ...claim.api, children: [D(11)] } }, loading)).toContain(
      'api: its platform images',
    );
  });
});
