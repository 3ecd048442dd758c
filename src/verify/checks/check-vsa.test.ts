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
  policy: { checks: ['in-step', 'signature', 'sbom', 'provenance'], releaseKey: 'k', version: 'v1.0.0' },
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
      ['rc-restamp'],
    ).verdicts;
    expect(failed!.problems.join()).toContain('verificationResult is FAILED, not PASSED');
    expect(other!.problems.join()).toContain('it is about v0.9.0, not v1.0.0');
    expect(lacking!.problems).toEqual(['its policy did not include the required check(s) rc-restamp']);
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

  it('refuses a policy naming another release key or verifier than the configured ones, and an empty policy', () => {
    const trust = { releaseKey: 'k', verifierId: 'https://service-release.dev/verifier' };
    const judged = (over: Partial<VsaClaim>) =>
      judgeVsas([{ source: 's', claim: claim(over) }], release, [], trust).verdicts[0]!;
    expect(judged({}).accepted).toBe(true);
    expect(judged({ policy: { ...claim().policy, releaseKey: 'other' } }).problems).toEqual([
      'its policy held signatures to the key other, not the configured release key k',
    ]);
    expect(judged({ verifierId: 'https://evil.example/verifier' }).problems).toEqual([
      'its verifier is https://evil.example/verifier, not the configured https://service-release.dev/verifier',
    ]);
    // Empty, the level it claims has nothing under it either.
    expect(judged({ policy: { ...claim().policy, checks: [] } }).problems).toEqual([
      'its policy names no check: it vouches for nothing',
      'it claims SLSA_BUILD_LEVEL_1, but its policy did not check provenance',
    ]);
    // Without a configured release key, the summary's own is not held to one.
    expect(
      judgeVsas(
        [{ source: 's', claim: claim({ policy: { ...claim().policy, releaseKey: 'x' } }) }],
        release,
        [],
        { verifierId: trust.verifierId },
      ).verdicts[0]!.accepted,
    ).toBe(true);
  });

  it.each([
    [['SLSA_BUILD_LEVEL_0'], ['in-step'], []],
    [['SLSA_BUILD_LEVEL_1'], ['in-step', 'provenance'], []],
    [['SLSA_BUILD_LEVEL_2'], ['signature', 'provenance'], []],
    [
      ['SLSA_BUILD_LEVEL_1'],
      ['in-step', 'signature'],
      ['it claims SLSA_BUILD_LEVEL_1, but its policy did not check provenance'],
    ],
    [
      ['SLSA_BUILD_LEVEL_2'],
      ['provenance'],
      ['it claims SLSA_BUILD_LEVEL_2, but its policy did not check signatures'],
    ],
    [
      ['SLSA_BUILD_LEVEL_3'],
      ['signature', 'provenance'],
      ['it claims SLSA_BUILD_LEVEL_3: no check of release verify shows a hardened build platform'],
    ],
    [
      ['SLSA_SOURCE_LEVEL_4'],
      ['signature', 'provenance'],
      ['it claims SLSA_SOURCE_LEVEL_4, which release verify does not check'],
    ],
    [[], ['signature', 'provenance'], ['it claims no level']],
  ] as const)('levels %j with checks %j: %j', (levels, checks, problems) => {
    const verdict = judgeVsas(
      [
        {
          source: 's',
          claim: claim({ verifiedLevels: [...levels], policy: { ...claim().policy, checks: [...checks] } }),
        },
      ],
      release,
      [],
    ).verdicts[0]!;
    expect(verdict.problems).toEqual(problems);
  });
});
