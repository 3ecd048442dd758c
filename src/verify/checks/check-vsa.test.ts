import { describe, expect, it } from 'vitest';
import type { VsaClaim } from '../../evidence/vsa.ts';
import { judgeVsas, type ReleaseDigests } from './check-vsa.ts';

const d = (c: string) => `sha256:${c.repeat(64)}`;
const release: ReleaseDigests = {
  version: 'v1.0.0',
  images: [
    { artifact: 'api', repository: 'acme-api', digests: [d('a'), d('1'), d('2')] },
    { artifact: 'worker', repository: 'acme-worker', digests: [d('b')] },
  ],
};
const claim = (over: Partial<VsaClaim> = {}): VsaClaim => ({
  subjects: [
    { name: 'acme-api', digest: { sha256: 'a'.repeat(64) } },
    { name: 'acme-api', digest: { sha256: '1'.repeat(64) } },
    { name: 'acme-api', digest: { sha256: '2'.repeat(64) } },
    { name: 'acme-worker', digest: { sha256: 'b'.repeat(64) } },
    { name: 'acme-cli.tar.gz', digest: { sha256: 'f'.repeat(64) } },
  ],
  verifierId: 'https://service-release.dev/verifier',
  timeVerified: '2026-11-26T12:00:00Z',
  resourceUri: 'urn:service-release:release-set:v1.0.0',
  result: 'PASSED',
  verifiedLevels: ['SLSA_BUILD_LEVEL_1'],
  policy: { checks: ['in-step', 'signature', 'sbom'], releaseKey: 'k', version: 'v1.0.0' },
  ...over,
});

describe('judgeVsas', () => {
  it('accepts a PASSED summary of every release digest (a non-image subject is the verifier’s word)', () => {
    const { verdicts, uncovered } = judgeVsas([{ source: 's', claim: claim() }], release, ['sbom']);
    expect(verdicts).toEqual([expect.objectContaining({ accepted: true, problems: [] })]);
    expect(uncovered).toEqual([]);
  });

  it('refuses FAILED, another version, a missing required check, a foreign digest', () => {
    const [failed, other, lacking, foreign] = judgeVsas(
      [
        { source: 'failed', claim: claim({ result: 'FAILED' }) },
        { source: 'other', claim: claim({ policy: { ...claim().policy, version: 'v0.9.0' } }) },
        { source: 'lacking', claim: claim() },
        {
          source: 'foreign',
          claim: claim({ subjects: [{ name: 'acme-worker', digest: { sha256: 'e'.repeat(64) } }] }),
        },
      ],
      release,
      ['provenance'],
    ).verdicts;
    expect(failed!.problems.join()).toContain('verificationResult is FAILED, not PASSED');
    expect(other!.problems.join()).toContain('it is about v0.9.0, not v1.0.0');
    expect(lacking!.problems).toEqual(['its policy did not include the required check(s) provenance']);
    expect(foreign!.problems.join()).toContain(`acme-worker@${d('e')}, which is not in v1.0.0`);
  });

  it('names each release digest no accepted summary covers', () => {
    const api = claim({ subjects: claim().subjects.slice(0, 2) });
    const { verdicts, uncovered } = judgeVsas(
      [
        { source: 'api', claim: api },
        { source: 'bad', reason: 'the signature does not match its payload' },
      ],
      release,
      [],
    );
    expect(verdicts.map((v) => v.accepted)).toEqual([true, false]);
    expect(uncovered).toEqual([`acme-api@${d('2')}`, `acme-worker@${d('b')}`]);
  });

  it('refuses a summary about none of the release images', () => {
    const [only] = judgeVsas(
      [
        {
          source: 'cli',
          claim: claim({ subjects: [{ name: 'acme-cli.tar.gz', digest: { sha256: 'f'.repeat(64) } }] }),
        },
      ],
      release,
      [],
    ).verdicts;
    expect(only!.problems).toEqual(['it names none of the images of v1.0.0']);
  });
});
