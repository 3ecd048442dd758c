import { builtImageArtifacts } from '../../config/artifacts.ts';
import { spelledTagReadIn } from '../../registry/spelled-tag.ts';
import type { Descriptor } from '../../registry/store.ts';
import { referenceOf } from '../../verify/checks.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import type { Version } from '../../version/kinds.ts';
import { parseVersion } from '../../version/parse.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * The version the live deployment reports (or `--expect` names): what the store steps look up.
 * Undefined when no running artifact reported a readable one.
 */
export function deployedVersion(ctx: VerifyContext): Version | undefined {
  const live = ctx.probed!.results.filter((r) => r.version !== undefined && r.running !== false);
  const reference = referenceOf(live, ctx.options.expect);
  return reference ? parseVersion(reference.tag) : undefined;
}

/**
 * The version's tag as the store spells it: look-ups accept either spelling and read the tag that
 * exists (DESIGN.md "Channels and tags"), so `--expect v2026.7.0` of a project tagging `2026.7.0`
 * reads `2026.7.0`. Read once from the api's image (else the first image) per run; the spelling
 * given when neither exists, so what is missing is named as asked.
 */
export async function storeTagOf(ctx: VerifyContext, version: Version): Promise<string> {
  const tag = imageTagOf(version);
  const repository = ctx.options.images.api ?? Object.values(ctx.options.images)[0];
  if (!ctx.store || repository === undefined) return tag;
  ctx.storeTags ??= new Map();
  const known = ctx.storeTags.get(tag);
  if (known !== undefined) return known;
  const read = await spelledTagReadIn(ctx.store, repository, tag);
  ctx.storeTags.set(tag, read.tag);
  ctx.storeTagReads ??= new Map();
  if (read.descriptor) ctx.storeTagReads.set(tagKey(repository, read.tag), read.descriptor);
  return read.tag;
}

/** What finding the spelling already read of `repository:tag`, so the tag is not asked for twice. */
export function storeTagRead(ctx: VerifyContext, repository: string, tag: string): Descriptor | undefined {
  return ctx.storeTagReads?.get(tagKey(repository, tag));
}

function tagKey(repository: string, tag: string): string {
  return `${repository}\0${tag}`;
}

/** One image of the deployment to check in the store, with the containers that run it. */
export interface DeployedImage {
  artifact: string;
  repository: string;
  tag: string;
  running: { source: string; digest: string | undefined }[];
}

/**
 * Each image of the deployment at `tag`, with the digests its containers run (--docker): the
 * probed ones of API, worker and web, and the config's extra images (a `scheduler`), released in
 * step with them and checked alike. What signatures and evidence are read for: each digest once,
 * so the roles of a shared image give one entry per digest they run (under the first role that
 * runs it, the builder first), and the tag's digest only when no role's digest is known.
 */
export function deployedImages(ctx: VerifyContext, tag: string): DeployedImage[] {
  const readings = ctx.registry ?? [];
  const of = (artifact: string, repository: string): DeployedImage[] => {
    const found = readings.filter((r) => r.artifact === artifact);
    return found.length
      ? found.map((r) => ({ artifact, repository: r.repository, tag, running: r.running }))
      : [{ artifact, repository, tag, running: [] }];
  };
  const images = onePerDigest([
    ...(['api', 'worker', 'web'] as const)
      .filter((name) => ctx.probed!.probed.includes(name))
      .flatMap((artifact) => of(artifact, ctx.options.images[artifact])),
    ...Object.entries(ctx.extraImages ?? {}).flatMap(([artifact, repository]) => of(artifact, repository)),
  ]);
  if (!ctx.attest) return images;
  // --attest vouches for the whole release: an image the deployment did not show (no --web-url)
  // is checked at its tag, as a verify of the registry alone checks it.
  const read = new Set(images.map((i) => i.repository));
  const rest = builtImageArtifacts(ctx.config).filter((a) => !read.has(a.image));
  return [...images, ...rest.map((a) => ({ artifact: a.name, repository: a.image, tag, running: [] }))];
}

/** Drop what an earlier entry of the same repository already reads: a running digest, or its tag. */
function onePerDigest(images: DeployedImage[]): DeployedImage[] {
  const withRunning = new Set(images.filter((i) => i.running.length).map((i) => i.repository));
  const claimed = new Map<string, Set<string>>();
  return images.flatMap((image) => {
    const first = !claimed.has(image.repository);
    const digests = claimed.get(image.repository) ?? new Set();
    claimed.set(image.repository, digests);
    if (image.running.length === 0) return first && !withRunning.has(image.repository) ? [image] : [];
    const running = image.running.filter((r) => {
      if (r.digest === undefined) return true;
      if (digests.has(r.digest)) return false;
      digests.add(r.digest);
      return true;
    });
    return running.length ? [{ ...image, running }] : [];
  });
}
