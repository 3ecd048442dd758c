import type { VsaClaim, VsaReading } from '../../evidence/vsa.ts';
import type { VsaCheck } from '../../evidence/vsa-checks.ts';

/** The release a summary must be about: its tag and every image digest (index and children) by repository. */
export interface ReleaseDigests {
  version: string;
  images: { artifact: string; repository: string; digests: string[] }[];
}

/** Who a summary must name: the config's release key (SPKI SHA-256 hex) and verifier id. */
export interface VsaTrust {
  releaseKey?: string;
  verifierId?: string;
}

export interface VsaVerdict {
  source: string;
  accepted: boolean;
  /** Why it is refused (empty when accepted). */
  problems: string[];
  result?: string;
  levels?: string[];
}

/**
 * Judge each summary against the release and the checks the caller requires, then ask whether
 * every image digest of the release is covered by one accepted summary. Pure.
 *
 * Refused: a summary that did not verify under the verifier's key, whose result is not PASSED,
 * made for another tag, whose policy lacks a required check or names no check at all, whose
 * policy names another release key or whose verifier is another than the configured ones
 * (`trust`), that claims a level its checks do not support, that names an image digest which is
 * not the release's, or that names none of the release's images. Subjects that are not images
 * (the CLI archive and npm package of the release-set summary) are the verifier's word: this side
 * has no digest of its own to hold them to.
 */
export function judgeVsas(
  readings: readonly VsaReading[],
  release: ReleaseDigests,
  required: readonly VsaCheck[],
  trust: VsaTrust = {},
): { verdicts: VsaVerdict[]; uncovered: string[] } {
  const byRepository = new Map(release.images.map((i) => [i.repository, new Set(i.digests)]));
  const covered = new Set<string>();
  const verdicts = readings.map((reading): VsaVerdict => {
    const claim = reading.claim;
    if (!claim)
      return { source: reading.source, accepted: false, problems: [reading.reason ?? 'unreadable'] };
    const problems: string[] = [];
    if (claim.result !== 'PASSED') problems.push(`its verificationResult is ${claim.result}, not PASSED`);
    if (claim.policy.version !== release.version)
      problems.push(`it is about ${claim.policy.version || 'no version'}, not ${release.version}`);
    if (claim.policy.checks.length === 0) problems.push('its policy names no check: it vouches for nothing');
    if (trust.releaseKey !== undefined && claim.policy.releaseKey !== trust.releaseKey)
      problems.push(
        `its policy held signatures to the key ${claim.policy.releaseKey.slice(0, 16) || '(none)'}, not the configured release key ${trust.releaseKey.slice(0, 16)}`,
      );
    if (trust.verifierId !== undefined && claim.verifierId !== trust.verifierId)
      problems.push(`its verifier is ${claim.verifierId}, not the configured ${trust.verifierId}`);
    problems.push(...levelProblems(claim));
    const missing = required.filter((c) => !claim.policy.checks.includes(c));
    if (missing.length > 0)
      problems.push(`its policy did not include the required check(s) ${missing.join(', ')}`);
    const mine: string[] = [];
    for (const subject of claim.subjects) {
      const digests = byRepository.get(subject.name);
      if (!digests) continue;
      const digest = `sha256:${subject.digest['sha256'] ?? ''}`;
      if (digests.has(digest)) mine.push(`${subject.name}@${digest}`);
      else problems.push(`it names ${subject.name}@${digest}, which is not in ${release.version}`);
    }
    if (mine.length === 0 && problems.length === 0)
      problems.push(`it names none of the images of ${release.version}`);
    if (problems.length === 0) for (const m of mine) covered.add(m);
    return {
      source: reading.source,
      accepted: problems.length === 0,
      problems,
      result: claim.result,
      levels: claim.verifiedLevels,
    };
  });
  const uncovered = release.images.flatMap((i) =>
    i.digests.map((d) => `${i.repository}@${d}`).filter((ref) => !covered.has(ref)),
  );
  return { verdicts, uncovered };
}

/**
 * The levels a PASSED summary may claim, by what its policy checked: a build level of 1 needs the
 * provenance checked, 2 also its signature; 3 and above (a hardened build platform) no check of
 * `release verify` shows, and a level of another track it never checks.
 */
function levelProblems(claim: VsaClaim): string[] {
  if (claim.result !== 'PASSED') return [];
  if (claim.verifiedLevels.length === 0) return ['it claims no level'];
  const checks = new Set<string>(claim.policy.checks);
  return claim.verifiedLevels.flatMap((level) => {
    const build = /^SLSA_BUILD_LEVEL_(\d)$/.exec(level);
    if (!build) return [`it claims ${level}, which release verify does not check`];
    const n = Number(build[1]);
    if (n >= 3) return [`it claims ${level}: no check of release verify shows a hardened build platform`];
    if (n >= 1 && !checks.has('provenance'))
      return [`it claims ${level}, but its policy did not check provenance`];
    if (n >= 2 && !checks.has('signature'))
      return [`it claims ${level}, but its policy did not check signatures`];
    return [];
  });
}
