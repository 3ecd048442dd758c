import { parseIndexJson, parseJson } from './oci-schema.ts';
import { type Descriptor, MEDIA_TYPES } from './store.ts';

/** One runnable image of a multi-platform index: what a node of that platform pulls and runs. */
export interface PlatformChild {
  /** `linux/amd64`, `linux/arm64/v8`: the key rc and release children are matched by. */
  platform: string;
  digest: string;
}

/** `os/architecture[/variant]`, as `docker buildx --platform` writes it. */
export function platformName(platform: NonNullable<Descriptor['platform']>): string {
  return [platform.os, platform.architecture, platform.variant].filter(Boolean).join('/');
}

/**
 * The platform images of an index, in its order; undefined when the bytes are not an index (a
 * single-platform image). Attestation manifests (platform `unknown/unknown`, as buildx attaches
 * provenance) and other artifacts are left out: nothing runs them, and re-stamping keeps them
 * with the rc (src/restamp/restamp-image.ts) exactly so. Pure.
 */
export function platformChildren(manifestBytes: Uint8Array): PlatformChild[] | undefined {
  const index = parseIndexJson(parseJson(manifestBytes));
  if (typeof index === 'string') return undefined;
  return index.manifests
    .filter(
      (d) =>
        (d.mediaType === MEDIA_TYPES.ociManifest || d.mediaType === MEDIA_TYPES.dockerManifest) &&
        d.platform !== undefined &&
        d.platform.os !== 'unknown',
    )
    .map((d) => ({ platform: platformName(d.platform!), digest: d.digest }));
}

/** rc and release children side by side, by platform. */
export interface PlatformMatch {
  /** Platforms in both, in the rc's order. */
  pairs: { platform: string; rc: string; release: string }[];
  /** In the rc, not in the release: a node of that platform has no release to run. */
  missing: string[];
  /** In the release, not in the rc: code that was never a tested rc. */
  extra: string[];
}

/** Match a release index's children to its rc's, by platform. Pure. */
export function matchPlatforms(rc: PlatformChild[], release: PlatformChild[]): PlatformMatch {
  const released = new Map(release.map((c) => [c.platform, c.digest]));
  const tested = new Set(rc.map((c) => c.platform));
  return {
    pairs: rc
      .filter((c) => released.has(c.platform))
      .map((c) => ({ platform: c.platform, rc: c.digest, release: released.get(c.platform)! })),
    missing: rc.filter((c) => !released.has(c.platform)).map((c) => c.platform),
    extra: release.filter((c) => !tested.has(c.platform)).map((c) => c.platform),
  };
}
