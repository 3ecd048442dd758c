import { type Channel, channelRefusal } from '../channels/channel-of.ts';
import { RuleError } from '../errors.ts';
import { compareVersions } from '../version/compare.ts';
import { isOrdered, type OrderedVersion } from '../version/kinds.ts';
import { packageVersionOf } from '../version/package-version.ts';
import { parseVersion } from '../version/parse.ts';

/** A tarball's identity as the npm registry records it (`dist.integrity`, `dist.shasum`). */
export interface TarballDigest {
  /** Subresource integrity, `sha512-<base64>`. */
  integrity?: string | undefined;
  /** SHA-1 hex, what older registries keep. */
  shasum?: string | undefined;
}

/** The package as the registry has it; an unpublished package has no versions and no dist-tags. */
export interface PackageState {
  name: string;
  versions: Record<string, TarballDigest>;
  distTags: Record<string, string>;
}

export interface PackageInput {
  channel: Channel;
  /** The svc version being promoted (`v1.4.0`, `v1.4.0-rc.2`, `v1.4.0-3-gabc1234`...). */
  version: string;
  /** The build came from a dirty tree (rc and release refuse it). */
  dirty?: boolean;
  /** The tarball to publish. */
  tarball: TarballDigest;
  state: PackageState;
}

export interface DistTagWrite {
  tag: string;
  /** The version the tag names now; null when it does not exist. */
  from: string | null;
  to: string;
  reason: string;
}

export interface DistTagKept {
  tag: string;
  version: string | null;
  reason: string;
}

export interface PackagePlan {
  name: string;
  channel: Channel;
  /** The npm version (`1.4.0`, `1.4.0-rc.2`, `1.4.1-dev.3.gabc1234`). */
  version: string;
  /** Whether the tarball must be published (false: the same bytes are already there). */
  publish: boolean;
  publishReason: string;
  /** Dist-tags to point at `version`, written after every version is in place. */
  distTags: DistTagWrite[];
  kept: DistTagKept[];
}

/** The dist-tag each channel moves (DESIGN.md "Channels and tags", the CLI package row). */
export const CHANNEL_DIST_TAG: Record<Channel, string> = { dev: 'dev', rc: 'next', release: 'latest' };

/**
 * What promoting the CLI package writes, and what it leaves alone and why. Pure.
 *
 * - dev: a unique prerelease version (see packageVersionOf), dist-tag `dev`; never `latest`/`next`.
 * - rc: `X.Y.Z-rc.N`, dist-tag `next` unless that would move it backwards; never `latest`.
 * - release: `X.Y.Z`, dist-tag `latest` only when it is the highest stable version published
 *   (a backport gets its version only); never `next`.
 *
 * A published version is immutable: the same bytes again are a no-op, other bytes under the same
 * version throw a RuleError before anything is written.
 */
export function planPackage(input: PackageInput): PackagePlan {
  const parsed = parseVersion(input.version);
  const effective = input.dirty && !parsed.dirty ? { ...parsed, dirty: true } : parsed;
  const refusal = channelRefusal(effective, input.channel);
  if (refusal)
    throw new RuleError(
      'CHANNEL_REFUSED',
      `cannot publish service-cli to the ${input.channel} channel: ${refusal}`,
      {
        hint: 'publish a clean vX.Y.Z to release, a clean vX.Y.Z-rc.N to rc, or anything to dev',
      },
    );
  const { state } = input;
  const version = packageVersionOf(input.version);
  const published = Object.hasOwn(state.versions, version) ? state.versions[version]! : undefined;
  let publish = true;
  let publishReason = `new version ${version}`;
  if (published) {
    const same = sameBytes(published, input.tarball);
    if (same !== true) {
      throw new RuleError(
        'PACKAGE_VERSION_IMMUTABLE',
        `${state.name}@${version} is already published ${same === false ? 'with other bytes' : 'and its bytes cannot be compared'} (${describeDigest(published)}, this build ${describeDigest(input.tarball)}); a published version never changes`,
        {
          hint: `publish the exact archive of ${input.version} (release from its rc with --from), or cut a new version`,
        },
      );
    }
    publish = false;
    publishReason = `${state.name}@${version} is already published with the same bytes: nothing to publish`;
  }

  const wanted = CHANNEL_DIST_TAG[input.channel];
  const distTags: DistTagWrite[] = [];
  const kept: DistTagKept[] = [];
  const current = Object.hasOwn(state.distTags, wanted) ? state.distTags[wanted]! : null;
  const held = holdsBack(input.channel, version, state, current);
  if (current === version)
    kept.push({ tag: wanted, version: current, reason: `already at ${version}: nothing to do` });
  else if (held) kept.push({ tag: wanted, version: current, reason: held });
  else
    distTags.push({
      tag: wanted,
      from: current,
      to: version,
      reason: moveReason(input.channel, version, current),
    });

  for (const tag of ['latest', 'next']) {
    if (tag === wanted || !Object.hasOwn(state.distTags, tag)) continue;
    kept.push({
      tag,
      version: state.distTags[tag]!,
      reason: `the ${input.channel} channel never moves ${tag}`,
    });
  }
  return { name: state.name, channel: input.channel, version, publish, publishReason, distTags, kept };
}

/** Why the channel's dist-tag stays where it is, or undefined when it moves. */
function holdsBack(
  channel: Channel,
  version: string,
  state: PackageState,
  current: string | null,
): string | undefined {
  if (channel === 'dev') return undefined; // dev follows the newest development build
  const mine = parseVersion(version) as OrderedVersion;
  if (channel === 'release') {
    const highest = highestOf(Object.keys(state.versions).concat(current ?? []), 'release');
    if (highest && compareVersions(mine, highest) < 0)
      return `latest stays at ${current ?? '(none)'}: ${version} is a backport (${highest.raw} is the highest stable version published)`;
    return undefined;
  }
  const at = current === null ? undefined : parseVersion(current);
  if (at && isOrdered(at) && compareVersions(mine, at) < 0)
    return `next stays at ${current}: ${version} is older, and next never moves backwards`;
  return undefined;
}

function highestOf(versions: string[], kind: 'release'): OrderedVersion | undefined {
  let top: OrderedVersion | undefined;
  for (const raw of versions) {
    const v = parseVersion(raw);
    if (v.kind !== kind || v.dirty) continue;
    if (!top || compareVersions(v, top) > 0) top = v;
  }
  return top;
}

function moveReason(channel: Channel, version: string, from: string | null): string {
  const was = from === null ? '' : `: moves from ${from}`;
  if (channel === 'release') return `${version} is the highest stable version${was}`;
  if (channel === 'rc') return `next follows the newest release candidate${was}`;
  return `dev follows the newest development build${was}`;
}

/** true: same tarball; false: provably different; undefined: nothing in common to compare. */
export function sameBytes(a: TarballDigest, b: TarballDigest): boolean | undefined {
  if (a.integrity && b.integrity) return a.integrity === b.integrity;
  if (a.shasum && b.shasum) return a.shasum.toLowerCase() === b.shasum.toLowerCase();
  return undefined;
}

function describeDigest(d: TarballDigest): string {
  if (d.integrity) return `${d.integrity.slice(0, 22)}…`;
  if (d.shasum) return `shasum ${d.shasum.slice(0, 12)}`;
  return 'no integrity';
}
