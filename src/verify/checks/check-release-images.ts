import { sameTag } from '../../version/compare.ts';
import type { Finding } from '../types.ts';

/** One image of a release at its tag in the store, as `release verify --registry` without a deployment read it. */
export interface ReleaseImageReading {
  /** The artifact that builds the image; its other roles are `roles`. */
  artifact: string;
  /** Every artifact run from this image (the builder first): one image, however many roles. */
  roles: string[];
  repository: string;
  tag: string;
  store: string;
  /** The tag's digest; undefined when the tag is not there (or could not be read: `error`). */
  digest: string | undefined;
  /** The version the image's config states (label, else env); an index: the one all platforms state. */
  version: string | undefined;
  /** A multi-platform index: whether its platform images state different versions. */
  platformsDisagree?: boolean;
  error?: string;
}

/**
 * The release as the store holds it: every image at the tag, each stating the tag's version.
 * A tag missing from one image is drift (the release is not whole); an image whose config states
 * another version under this tag is drift (the tag was pushed over, or never re-stamped); one that
 * states none is a notice (an image built without the toolkit's label can still be the release: its
 * signature and release set bind its digest). A store that cannot be read proves nothing.
 */
export function checkReleaseImages(readings: readonly ReleaseImageReading[]): Finding[] {
  return readings.flatMap((r): Finding[] => {
    const ref = `${r.repository}:${r.tag}`;
    const about = { artifact: r.artifact, source: ref };
    if (r.error !== undefined)
      return [
        {
          code: 'REGISTRY_UNREACHABLE',
          message: `${r.artifact}: could not read ${ref} from ${r.store}: ${r.error}`,
          fix: 'check the registry address (--registry or `registry` in the config) and its credentials (docker login)',
          severity: 'unreachable',
          ...about,
        },
      ];
    if (r.digest === undefined)
      return [
        {
          code: 'REGISTRY_TAG_MISSING',
          message: `${r.artifact}: ${ref} is not in ${r.store}: the release ${r.tag} is not whole`,
          fix: `publish ${ref} with the rest of the release (release promote), or check --expect`,
          severity: 'drift',
          ...about,
        },
      ];
    if (r.platformsDisagree)
      return [
        {
          code: 'IMAGE_VERSION_MISMATCH',
          message: `${r.artifact}: the platform images of ${ref} state different versions`,
          fix: `release again from one build: release promote --channel release --from <rc tag> --version ${r.tag}`,
          severity: 'drift',
          ...about,
        },
      ];
    if (r.version === undefined)
      return [
        {
          code: 'IMAGE_VERSION_UNKNOWN',
          message: `${r.artifact}: ${ref} states no version in its config (no version label or variable)`,
          fix: 'build the image with the toolkit (release build), or label it org.opencontainers.image.version',
          severity: 'notice',
          ...about,
        },
      ];
    if (!sameTag(r.version, r.tag))
      return [
        {
          code: 'IMAGE_VERSION_MISMATCH',
          message: `${r.artifact}: ${ref} states ${r.version}: the tag was pushed over with another build, or was never re-stamped`,
          fix: `do not deploy ${ref}; promote the release again (release promote --channel release --from <rc tag> --version ${r.tag})`,
          severity: 'drift',
          ...about,
        },
      ];
    return [];
  });
}
