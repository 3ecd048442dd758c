import type { Channel } from './channel-of.ts';

/**
 * The tags a build gets in a channel (DESIGN.md "Channels and tags"): dev -> `dev` and
 * `sha-<12 hex>`; rc -> its `vX.Y.Z-rc.N`; release -> `vX.Y.Z` and `latest`. Whether `latest`
 * really moves is the promotion plan's business (it never moves backwards); this is the intent.
 */
export function channelTags(channel: Channel, tag: string, commit: string | undefined): string[] {
  switch (channel) {
    case 'dev':
      return commit ? ['dev', `sha-${commit.slice(0, 12)}`] : ['dev'];
    case 'rc':
      return [tag];
    case 'release':
      return [tag, 'latest'];
  }
}
