import { InternalError, RuleError } from '../errors.ts';
import { compareVersions, sameTag } from '../version/compare.ts';
import { imageTagOf } from '../version/image-tag.ts';
import type { OrderedVersion } from '../version/kinds.ts';
import { parseVersion } from '../version/parse.ts';
import { type Channel, channelRefusal } from './channel-of.ts';
import { channelTags, type TagKind, tagKind } from './tags.ts';

export type { TagKind };

/**
 * One artifact's state before promotion. `tags` lists every tag in the repository; the digest is
 * needed only for the tags `tagsToResolve` names (others may be `null`, meaning "present, not
 * looked up").
 */
export interface ArtifactState {
  repository: string;
  /** The digest to promote (`sha256:<hex>`). */
  source: string;
  tags: Record<string, string | null>;
}

export interface PromotionInput {
  /** The version to promote, as the project spells it (with or without a `v`: tagged as written). */
  version: string;
  channel: Channel;
  /** Full commit hash, for dev's `sha-<12 hex>`; absent when unknown. */
  commit?: string | undefined;
  /** Whether the build came from a dirty tree (rc and release refuse it). */
  dirty?: boolean;
  artifacts: Record<string, ArtifactState>;
}

export interface TagWrite {
  artifact: string;
  repository: string;
  tag: string;
  kind: TagKind;
  /** The digest the tag points at now; null when it does not exist. */
  from: string | null;
  to: string;
  reason: string;
}

export interface TagKept {
  artifact: string;
  repository: string;
  tag: string;
  digest: string | null;
  reason: string;
}

export interface ArtifactPlan {
  artifact: string;
  repository: string;
  source: string;
  writes: TagWrite[];
  kept: TagKept[];
}

export interface PromotionPlan {
  /** The image tag of the version, spelled as given (`v3.1.0` or `2026.7.0`). */
  tag: string;
  channel: Channel;
  artifacts: ArtifactPlan[];
  /** Plan-wide remarks, e.g. why dev has no commit tag. */
  notes: string[];
}

/** The tags whose digests the plan reads: look these up, list the rest by name only. */
export function tagsToResolve(input: Pick<PromotionInput, 'version' | 'channel' | 'commit'>, tags: string[]) {
  const tag = imageTagOf(parseVersion(input.version));
  const wanted = new Set(channelTags(input.channel, tag, input.commit));
  if (input.channel !== 'dev') for (const t of tags) if (sameTag(t, tag)) wanted.add(t);
  return tags.filter((t) => wanted.has(t));
}

/**
 * What a promotion writes, per artifact, and what it leaves alone and why (DESIGN.md "Channels and
 * tags"). Pure. Throws a RuleError when the channel does not take the version, or when a version
 * tag already points at another digest (version tags are immutable). Writes are only listed when
 * they change something: promoting the same digest again is a no-op.
 */
export function planPromotion(input: PromotionInput): PromotionPlan {
  const version = parseVersion(input.version);
  const effective = input.dirty && !version.dirty ? { ...version, dirty: true } : version;
  const refusal = channelRefusal(effective, input.channel);
  if (refusal) {
    throw new RuleError('CHANNEL_REFUSED', `cannot promote to the ${input.channel} channel: ${refusal}`, {
      hint: 'promote a clean X.Y.Z (or vX.Y.Z) to release, a clean X.Y.Z-rc.N to rc, or anything to dev',
    });
  }
  const tag = imageTagOf(version);
  const names = Object.keys(input.artifacts).sort();
  const notes: string[] = [];
  if (input.channel === 'dev' && !input.commit)
    notes.push('no commit is known for this build, so no sha-<12 hex> tag is written');

  refuseMovedVersionTags(input, tag, names);
  const latestMoves =
    input.channel === 'release' ? latestDecision(input, version as OrderedVersion) : undefined;

  const artifacts = names.map((artifact): ArtifactPlan => {
    const state = input.artifacts[artifact]!;
    const plan: ArtifactPlan = {
      artifact,
      repository: state.repository,
      source: state.source,
      writes: [],
      kept: [],
    };
    for (const name of channelTags(input.channel, tag, input.commit)) {
      const kind = tagKind(name);
      const from = digestOf(state, name);
      const entry = { artifact, repository: state.repository, tag: name };
      const spelled = kind === 'version' && from === null ? otherSpelling(state, name) : undefined;
      if (name === 'latest' && latestMoves && !latestMoves.moves) {
        plan.kept.push({ ...entry, digest: from, reason: latestMoves.reason });
      } else if (spelled !== undefined) {
        // One version, one tag: `v2026.7.0` already on this image is not written again as `2026.7.0`.
        plan.kept.push({
          ...entry,
          tag: spelled,
          digest: state.source,
          reason: `already at ${short(state.source)} as ${spelled}: the version is not tagged twice`,
        });
      } else if (from === state.source) {
        plan.kept.push({ ...entry, digest: from, reason: `already at ${short(from)}: nothing to do` });
      } else {
        plan.writes.push({
          ...entry,
          kind,
          from,
          to: state.source,
          reason: writeReason(name, kind, from, tag),
        });
      }
    }
    if (input.channel !== 'release' && Object.hasOwn(state.tags, 'latest')) {
      plan.kept.push({
        artifact,
        repository: state.repository,
        tag: 'latest',
        digest: state.tags['latest'] ?? null,
        reason: `the ${input.channel} channel never moves latest`,
      });
    }
    return plan;
  });
  return { tag, channel: input.channel, artifacts, notes };
}

/** Every write in apply order: version and commit tags of all artifacts, then floating tags. */
export function orderedWrites(plan: PromotionPlan): TagWrite[] {
  const all = plan.artifacts.flatMap((a) => a.writes);
  return [...all.filter((w) => w.kind !== 'floating'), ...all.filter((w) => w.kind === 'floating')];
}

function refuseMovedVersionTags(input: PromotionInput, tag: string, names: string[]): void {
  if (input.channel === 'dev') return;
  const moved: string[] = [];
  for (const artifact of names) {
    const state = input.artifacts[artifact]!;
    for (const existing of Object.keys(state.tags).filter((t) => sameTag(t, tag))) {
      const digest = digestOf(state, existing);
      if (digest !== null && digest !== state.source)
        moved.push(`${state.repository}:${existing} is ${short(digest)}, not ${short(state.source)}`);
    }
  }
  if (moved.length === 0) return;
  throw new RuleError(
    'TAG_IMMUTABLE',
    `version tag ${tag} already points at another image, and version tags never move:\n  ${moved.join('\n  ')}`,
    {
      hint: `release the exact images of ${tag} with --from ${tag}, or cut a new version (tag the commit with the next version)`,
    },
  );
}

/** latest moves only to the highest stable version present in any artifact (all move or none). */
function latestDecision(input: PromotionInput, version: OrderedVersion): { moves: boolean; reason: string } {
  let highest: { version: OrderedVersion; where: string } | undefined;
  for (const [artifact, state] of Object.entries(input.artifacts)) {
    for (const name of Object.keys(state.tags)) {
      const v = parseVersion(name);
      if (v.kind !== 'release' || v.dirty) continue;
      if (!highest || compareVersions(v, highest.version) > 0) highest = { version: v, where: artifact };
    }
  }
  if (highest && compareVersions(version, highest.version) < 0) {
    const top = imageTagOf(highest.version);
    return {
      moves: false,
      reason: `latest stays at ${top}: ${imageTagOf(version)} is a backport (${top} is the highest stable version present, in ${highest.where})`,
    };
  }
  return { moves: true, reason: '' };
}

function writeReason(name: string, kind: TagKind, from: string | null, tag: string): string {
  if (kind === 'version') return `new version tag ${tag}`;
  if (kind === 'commit')
    return from === null
      ? 'tag of the build commit'
      : `rebuilt from the same commit: replaces ${short(from)}`;
  if (name === 'latest')
    return `${tag} is the highest stable version present${from === null ? '' : `: moves from ${short(from)}`}`;
  return `dev follows the newest development build${from === null ? '' : `: moves from ${short(from)}`}`;
}

/** The other spelling of a version tag (`v1.2.0` for `1.2.0`) when it names the source image. */
function otherSpelling(state: ArtifactState, tag: string): string | undefined {
  return Object.keys(state.tags).find(
    (t) => t !== tag && sameTag(t, tag) && digestOf(state, t) === state.source,
  );
}

function digestOf(state: ArtifactState, tag: string): string | null {
  if (!Object.hasOwn(state.tags, tag)) return null;
  const digest = state.tags[tag];
  if (digest === null || digest === undefined)
    throw new InternalError(
      'PLAN_MISSING_DIGEST',
      `the digest of ${state.repository}:${tag} was not looked up`,
    );
  return digest;
}

/** `sha256:0123456789ab` — enough to tell digests apart in a message. */
export function short(digest: string | null): string {
  return digest === null ? '(none)' : digest.slice(0, 19);
}
