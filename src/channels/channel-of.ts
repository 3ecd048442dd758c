import type { Version } from '../version/kinds.ts';

export type Channel = 'dev' | 'rc' | 'release';
export const CHANNELS: readonly Channel[] = ['dev', 'rc', 'release'];

/**
 * The channel a version belongs to (DESIGN.md rule 5): a clean `vX.Y.Z` is a full release, a
 * clean `vX.Y.Z-rc.N` a release candidate, and everything else, dirty builds included, is dev.
 */
export function channelOf(version: Version): Channel {
  if (version.dirty) return 'dev';
  if (version.kind === 'release') return 'release';
  if (version.kind === 'rc') return 'rc';
  return 'dev';
}

/**
 * Why `version` may not go to `channel`, or undefined when it may. dev takes anything; rc and
 * release take only their own kind, from a clean tree.
 */
export function channelRefusal(version: Version, channel: Channel): string | undefined {
  if (channel === 'dev') return undefined;
  if (version.kind === 'unknown') return `version is unknown; the ${channel} channel needs a tagged build`;
  if (version.dirty)
    return `"${version.raw}" was built from a dirty tree; the ${channel} channel needs a clean one`;
  const wanted = channel === 'rc' ? 'rc' : 'release';
  if (version.kind !== wanted) {
    const form = channel === 'rc' ? 'vX.Y.Z-rc.N' : 'vX.Y.Z';
    return `"${version.raw}" is a ${version.kind} version; the ${channel} channel takes only ${form}`;
  }
  return undefined;
}
