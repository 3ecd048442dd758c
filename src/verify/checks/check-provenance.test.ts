import { describe, expect, it } from 'vitest';
import type { PlatformProvenance, ProvenanceReading } from '../types.ts';
import { checkProvenance } from './check-provenance.ts';

const d = (n: number) => `sha256:${String(n).repeat(64)}`;
const proven = {
  imageVersion: 'v3.2.0',
  rcVersion: 'v3.2.0-rc.1',
  codeLayers: { count: 1, equal: true },
  restampMatches: true,
  rcSignature: 'valid' as const,
  releaseSignature: 'bound' as const,
};
const child = (platform: string, n: number, over: Partial<PlatformProvenance> = {}): PlatformProvenance => ({
  platform,
  digest: d(n),
  madeFrom: d(n + 4),
  ...proven,
  ...over,
});
const index = (over: Partial<ProvenanceReading> = {}): ProvenanceReading => ({
  artifact: 'api',
  repository: 'service-api',
  tag: 'v3.2.0',
  digest: d(1),
  madeFrom: d(9),
  ...proven,
  codeLayers: undefined,
  platforms: [child('linux/amd64', 2), child('linux/arm64', 3)],
  ...over,
});

describe('checkProvenance, multi-platform', () => {
  it('an index whose every platform is its signed rc re-stamped has no finding', () => {
    expect(checkProvenance([index()], true)).toEqual([]);
  });

  it('a platform of the rc missing from the release is drift, said once (not also "not re-stamped")', () => {
    const findings = checkProvenance(
      [
        index({
          platforms: [child('linux/amd64', 2)],
          missingPlatforms: ['linux/arm64'],
          restampMatches: false,
        }),
      ],
      false,
    );
    expect(findings.map((f) => [f.code, f.severity, f.artifact])).toEqual([
      ['RELEASE_PLATFORM_MISSING', 'drift', 'api'],
    ]);
    expect(findings[0]!.message).toContain('lacks linux/arm64');
  });

  it("one platform's code differing from its rc child is drift, naming the platform", () => {
    const findings = checkProvenance(
      [
        index({
          platforms: [
            child('linux/amd64', 2),
            child('linux/arm64', 3, { codeLayers: { count: 1, equal: false } }),
          ],
        }),
      ],
      false,
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ code: 'RELEASE_CODE_DIFFERS', artifact: 'api', severity: 'drift' });
    expect(findings[0]!.message).toMatch(/^api \(linux\/arm64\): /);
  });

  it('an unsigned platform child is a notice, drift when signatures are required', () => {
    const reading = index({ platforms: [child('linux/amd64', 2, { releaseSignature: 'missing' })] });
    expect(checkProvenance([reading], false).map((f) => [f.code, f.severity])).toEqual([
      ['RELEASE_NOT_BOUND', 'notice'],
    ]);
    expect(checkProvenance([reading], true).map((f) => [f.code, f.severity])).toEqual([
      ['RELEASE_NOT_BOUND', 'drift'],
    ]);
  });

  it("a child from another rc, or a platform the rc never had, is not the rc's code", () => {
    const findings = checkProvenance(
      [index({ platforms: [child('linux/amd64', 2, { notInRc: true })], extraPlatforms: ['linux/s390x'] })],
      false,
    );
    expect(findings.map((f) => f.code)).toEqual(['RELEASE_PLATFORM_NOT_IN_RC', 'RELEASE_PLATFORM_NOT_IN_RC']);
  });

  it('a single-platform image is checked as before', () => {
    const single: ProvenanceReading = {
      artifact: 'web',
      repository: 'service-web',
      tag: 'v3.2.0',
      digest: d(1),
      madeFrom: d(2),
      ...proven,
      restampMatches: false,
    };
    expect(checkProvenance([single], false).map((f) => f.code)).toEqual(['RELEASE_NOT_RC_RESTAMP']);
  });
});
