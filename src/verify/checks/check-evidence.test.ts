import { describe, expect, it } from 'vitest';
import type { EvidenceReading } from '../types.ts';
import { checkEvidence } from './check-evidence.ts';

const valid = { status: 'valid', reason: 'signed' } as const;
const set = {
  version: 'v1.0.0',
  artifacts: {
    api: { repository: 'acme-api', digest: 'sha256:a' },
    worker: { repository: 'acme-worker', digest: 'sha256:w', children: ['sha256:w1'] },
  },
  hasArchive: true,
};
const reading = (over: Partial<EvidenceReading>): EvidenceReading => ({
  artifact: 'api',
  repository: 'acme-api',
  digest: 'sha256:a',
  of: 'acme-api:v1.0.0',
  sbom: valid,
  provenance: valid,
  releaseSet: set,
  ...over,
});
const expected = { images: ['api', 'worker'], cli: true };

describe('checkEvidence', () => {
  it('finds nothing when every digest is attested and in a complete set', () => {
    const readings = [
      reading({}),
      reading({ artifact: 'worker', repository: 'acme-worker', digest: 'sha256:w1' }),
    ];
    expect(checkEvidence(readings, expected, true)).toEqual([]);
  });

  it('a missing SBOM is a notice, drift when attestations are required', () => {
    const readings = [reading({ sbom: { status: 'missing', reason: 'no SBOM is attached' } })];
    expect(checkEvidence(readings, expected, false).map((f) => [f.code, f.severity])).toEqual([
      ['EVIDENCE_MISSING', 'notice'],
    ]);
    expect(checkEvidence(readings, expected, true).map((f) => [f.code, f.severity])).toEqual([
      ['EVIDENCE_MISSING', 'drift'],
    ]);
  });

  it('a deployed digest the set does not name is drift, even when not required', () => {
    const readings = [
      reading({}),
      reading({ artifact: 'worker', repository: 'acme-worker', digest: 'sha256:x', releaseSet: undefined }),
    ];
    const findings = checkEvidence(readings, expected, false);
    expect(findings.map((f) => [f.code, f.severity, f.artifact])).toEqual([
      ['RELEASE_SET_MISMATCH', 'drift', 'worker'],
    ]);
    expect(findings[0]!.message).toContain('it names sha256:w');
  });

  it('a set that leaves out an artifact of the config is drift', () => {
    const findings = checkEvidence([reading({})], { images: ['api', 'worker', 'web'], cli: true }, false);
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['RELEASE_SET_INCOMPLETE', 'drift']]);
  });

  it('no release set at all is a notice, drift when required', () => {
    const readings = [reading({ releaseSet: undefined })];
    expect(checkEvidence(readings, expected, false).map((f) => [f.code, f.severity])).toEqual([
      ['RELEASE_SET_MISSING', 'notice'],
    ]);
    expect(checkEvidence(readings, expected, true).map((f) => f.severity)).toEqual(['drift']);
  });
});
