import type { VsaReading } from '../../evidence/vsa.ts';
import type { VsaCheck } from '../../evidence/vsa-checks.ts';

/** The release a summary must be about: its tag and every image digest (index and children) by repository. */
export interface ReleaseDigests {
  version: string;
  images: { artifact: string; repository: string; digests: string[] }[];
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
 * made for another tag, whose policy lacks a required check, that names an image digest which is
 * not the release's, or that names none of the release's images. Subjects that are not images
 * (the CLI archive and npm package of the release-set summary) are the verifier's word: this side
 * has no digest of its own to hold them to.
 */
export function judgeVsas(
  readings: readonly VsaReading[],
  release: ReleaseDigests,
  required: readonly VsaCheck[],
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
