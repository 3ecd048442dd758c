import { builtImageArtifacts, imageArtifact } from '../config/artifacts.ts';
import type { ImageArtifact, ReleaseConfig } from '../config/schema.ts';
import { RuleError, UsageError } from '../errors.ts';
import { imageRecord, type ReleaseRecord } from '../record/release-record.ts';
import { isDigest } from '../registry/digest.ts';
import { isImageOf, splitImageRef } from '../registry/image-ref.ts';
import { isValidImageTag } from '../version/image-tag.ts';

/** One image to sign: named by tag or digest on the command line, signed by digest only. */
export interface SignTarget {
  artifact: ImageArtifact;
  repository: string;
  /** What the user named (a tag or a digest); only ever used to find the digest. */
  reference: string;
  /** The manifest digest in the store, once resolved. */
  digest?: string;
  /** The digest the release record says was built, when known: the tag must still point there. */
  expected?: string;
}

type Images = Pick<ReleaseConfig, 'artifacts'>;

/**
 * What `release sign <ref>` names: a tag shared by every image (`v1.2.0-rc.1`), or one image by
 * tag or digest (`service-api:v1.2.0-rc.1`, `service-api@sha256:...`, registry prefix allowed).
 */
export function targetsFromRef(ref: string, config: Images): SignTarget[] {
  if (isDigest(ref)) {
    throw new UsageError('SIGN_BARE_DIGEST', `${ref} does not say which image it is`, {
      hint: 'name the image too: release sign service-api@sha256:<hex>',
    });
  }
  const parsed = splitImageRef(ref);
  if (parsed.tag === undefined && parsed.digest === undefined) {
    if (!isValidImageTag(ref)) throw badRef(ref);
    return builtImageArtifacts(config).map((artifact) => target(artifact.name, config, ref));
  }
  const artifact = builtImageArtifacts(config).find((a) => isImageOf(parsed.repository, a.image))?.name;
  if (!artifact) {
    const known = builtImageArtifacts(config)
      .map((a) => a.image)
      .join(', ');
    throw new UsageError(
      'SIGN_UNKNOWN_IMAGE',
      `${parsed.repository} is not one of the configured images (${known})`,
      {
        hint: 'sign a configured image, or a tag of all of them: release sign v1.2.0-rc.1',
      },
    );
  }
  const reference = parsed.digest ?? parsed.tag!;
  if (parsed.digest ? !isDigest(parsed.digest) : !isValidImageTag(reference)) throw badRef(ref);
  return [target(artifact, config, reference)];
}

/**
 * `release sign --channel rc`: the release candidate the record describes, every image at its
 * tag, each held to the digest the build recorded.
 */
export function targetsFromRecord(record: ReleaseRecord, config: Images): SignTarget[] {
  if (record.channel !== 'rc') {
    throw new RuleError(
      'SIGN_NOT_RC',
      `the release record is ${record.tag} (channel ${record.channel}); --channel rc signs release candidates`,
      {
        hint: 'stamp and build a vX.Y.Z-rc.N first, or sign explicitly: release sign <tag>',
      },
    );
  }
  return builtImageArtifacts(config).map(({ name }) => {
    const built = imageRecord(record, name)?.digest;
    return { ...target(name, config, record.tag), ...(built ? { expected: built } : {}) };
  });
}

function target(artifact: ImageArtifact, config: Images, reference: string): SignTarget {
  return { artifact, repository: imageArtifact(config, artifact)!.image, reference };
}

function badRef(ref: string): UsageError {
  return new UsageError(
    'SIGN_BAD_REF',
    `"${ref}" is neither an image tag nor <image>:<tag> or <image>@sha256:<hex>`,
    {
      hint: 'for example: release sign v1.2.0-rc.1, or release sign service-api@sha256:<64 hex>',
    },
  );
}
