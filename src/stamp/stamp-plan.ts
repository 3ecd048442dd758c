import { type Channel, channelOf, channelRefusal } from '../channels/channel-of.ts';
import { channelTags } from '../channels/tags.ts';
import { builtImageArtifacts, cliArtifact, rolesOfImage } from '../config/artifacts.ts';
import type { ReleaseConfig } from '../config/schema.ts';
import { RuleError, UsageError } from '../errors.ts';
import type { RepoInfo } from '../git/repo-info.ts';
import type { ImageRecord, ReleaseRecord } from '../record/release-record.ts';
import { printable } from '../text/printable.ts';
import { MAX_VERSION_LENGTH } from '../version/commit-version.ts';
import { imageTagOf, isValidImageTag } from '../version/image-tag.ts';
import { parseVersion } from '../version/parse.ts';
import type { ResolvedVersion } from '../version-source/resolve-version.ts';

export interface StampInput {
  resolved: ResolvedVersion;
  repo: RepoInfo;
  config: ReleaseConfig;
  /** `--channel`: when absent the version's own channel is used. */
  requestedChannel?: Channel;
  /**
   * Untracked, not ignored files inside the artifacts' inputs: they would ship without being in
   * the tag, so they make the tree dirty (rc and release refuse, naming them; dev gets `-dirty`).
   */
  untracked?: readonly string[];
}

export interface StampDecision {
  record: ReleaseRecord;
  warnings: string[];
}

/**
 * Decide what a stamp writes: a pure function of the resolved version, the repository's state and
 * the config. Throws a UsageError for a value that cannot be a tag, a RuleError when the requested
 * channel does not take this version. Nothing is written by this function.
 */
export function planStamp(input: StampInput): StampDecision {
  const { repo, config } = input;
  const untracked = input.untracked ?? [];
  const resolved = markUntracked(input.resolved, untracked);
  const version = parseVersion(resolved.version);
  const from = resolved.source === 'env' ? 'SERVICE_VERSION' : 'git describe';
  // Judged on the value: its display form is cut (printable), and the cut is not in the value.
  if (resolved.version.length > MAX_VERSION_LENGTH)
    throw new UsageError(
      'VERSION_TOO_LONG',
      `${from} is ${resolved.version.length} characters long ("${printable(resolved.version, { max: 40 })}"), not a valid image tag: a version has at most ${MAX_VERSION_LENGTH} characters`,
      {
        hint: 'set SERVICE_VERSION to a tag such as v1.2.3, v1.2.3-rc.1, or leave it unset to use git describe',
      },
    );
  if (version.kind === 'invalid' && /[\s\u0000-\u001f\u007f]/.test(resolved.version)) {
    throw new UsageError(
      'VERSION_INVALID',
      `${from} "${printable(resolved.version)}" contains whitespace or control characters`,
      {
        hint: 'set SERVICE_VERSION to a tag such as v1.2.3, v1.2.3-rc.1, or leave it unset to use git describe',
      },
    );
  }
  const tag = imageTagOf(version);
  if (!isValidImageTag(tag)) {
    throw new UsageError(
      'VERSION_NOT_A_TAG',
      `${from} "${printable(resolved.version)}" gives "${printable(tag)}", which is not a valid image tag`,
      {
        hint: 'image tags are 1-128 characters of [A-Za-z0-9_.-], not starting with "." or "-"; use a tag such as v1.2.3',
      },
    );
  }

  const dirty = version.dirty || repo.dirty || untracked.length > 0;
  const effective = dirty && !version.dirty ? { ...version, dirty: true } : version;
  const channel = input.requestedChannel ?? channelOf(effective);
  const refusal = channelRefusal(effective, channel);
  if (refusal) {
    const named = untracked.length ? `; ${untrackedLine(untracked)}` : '';
    throw new RuleError('CHANNEL_REFUSED', `cannot stamp for the ${channel} channel: ${refusal}${named}`, {
      hint: untracked.length
        ? 'commit the untracked files, delete them, or add them to .gitignore; or stamp for --channel dev'
        : channel === 'release'
          ? 'tag the commit (git tag v1.2.3), commit or stash changes, or stamp for --channel dev'
          : 'tag the commit as vX.Y.Z-rc.N, commit or stash changes, or stamp for --channel dev',
    });
  }

  const warnings: string[] = [];
  if (untracked.length) warnings.push(`${untrackedLine(untracked)}: the tree counts as dirty`);
  if (version.kind === 'hash') {
    warnings.push(
      repo.shallow
        ? `no tag is reachable and this is a shallow clone, so the version is a bare hash (${version.raw}); fetch tags: git fetch --tags --unshallow (actions/checkout: fetch-depth: 0)`
        : `no tag is reachable from HEAD, so the version is a bare hash (${version.raw}); tag a release (git tag v0.1.0) to get a comparable version`,
    );
  }
  if (version.kind === 'unknown')
    warnings.push('no SERVICE_VERSION and no git repository: the version is "unknown"');
  if (version.kind === 'invalid') {
    warnings.push(
      `${from} "${version.raw}" is a valid tag but not a version: it can only go to the dev channel`,
    );
  }

  const repository = (image: string) => `${config.registry}/${image}`;
  const tags = channelTags(channel, tag, repo.commit ?? undefined);
  const images: Record<string, ImageRecord> = Object.fromEntries(
    // One entry per image, under the artifact that builds it; the roles run from it beside it.
    builtImageArtifacts(config).map((artifact) => {
      const repo = repository(artifact.image);
      const references = tags.map((t) => `${repo}:${t}`);
      const roles = rolesOfImage(config, artifact.image);
      return [
        artifact.name,
        {
          ...(artifact.role ? { role: artifact.role } : {}),
          repository: repo,
          references,
          ...(roles.length > 1
            ? { roles: roles.map((r) => ({ artifact: r.name, ...(r.role ? { role: r.role } : {}) })) }
            : {}),
        },
      ];
    }),
  );
  const cli = cliArtifact(config);

  const record: ReleaseRecord = {
    schemaVersion: 1,
    version: resolved.version,
    tag,
    channel,
    source: resolved.source,
    commit: repo.commit,
    dirty,
    commitTime: repo.commitTime,
    artifacts: { ...images, ...(cli ? { [cli.name]: cliEntry(cli, tag) } : {}) },
  };
  return { record, warnings };
}

/**
 * The CLI in the record: on the service's line, the tag; on its own line, nothing stamped (its
 * version is what its package declares, read from the archive `release build` makes).
 */
function cliEntry(cli: { package: string; version: 'service' | 'own' }, tag: string) {
  return cli.version === 'own'
    ? { package: cli.package, version: 'unknown', line: 'own' as const }
    : { package: cli.package, version: tag };
}

/**
 * `git describe --dirty` looks at tracked files only: with untracked inputs, a version from git
 * gets the `-dirty` it would have had, so no dev build passes for the clean tag. SERVICE_VERSION
 * is the caller's word and is kept (the record's `dirty` still says so).
 */
function markUntracked(resolved: ResolvedVersion, untracked: readonly string[]): ResolvedVersion {
  if (untracked.length === 0 || resolved.source !== 'git' || resolved.version.endsWith('-dirty'))
    return resolved;
  return { ...resolved, version: `${resolved.version}-dirty` };
}

/** `untracked files in the artifacts' inputs: a, b, c (and 3 more)`. */
export function untrackedLine(untracked: readonly string[]): string {
  const shown = untracked.slice(0, 10).map((path) => printable(path));
  const more = untracked.length > shown.length ? ` (and ${untracked.length - shown.length} more)` : '';
  return `untracked files in the artifacts' inputs: ${shown.join(', ')}${more}`;
}
