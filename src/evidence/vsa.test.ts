import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseStatement } from './statements.ts';
import { buildLevel, POLICY_URI, policyDescriptor, type VsaInput, vsaClaim, vsaStatement } from './vsa.ts';

const HEX = 'a'.repeat(64);
const input: VsaInput = {
  subjects: [{ name: 'acme-api', digest: { sha256: HEX } }],
  verifier: { id: 'https://verifier.example/gate', version: '1.2.3' },
  timeVerified: '2026-11-26T12:00:00.000Z',
  resourceUri: `oci://acme-api@sha256:${HEX}`,
  policy: { checks: ['sbom', 'in-step', 'sbom'], releaseKey: 'b'.repeat(64), version: 'v1.0.0' },
  inputAttestations: [{ uri: `oci://acme-api@sha256:${'c'.repeat(64)}`, digest: { sha256: 'c'.repeat(64) } }],
  passed: true,
  verifiedLevels: ['SLSA_BUILD_LEVEL_1'],
};
const parsed = (bytes: Buffer) => {
  const statement = parseStatement(bytes);
  if (typeof statement === 'string') throw new Error(statement);
  return statement;
};

describe('vsaStatement', () => {
  it('is a SLSA VSA v1 with every field the spec names', () => {
    const statement = parsed(vsaStatement(input));
    expect(statement.predicateType).toBe('https://slsa.dev/verification_summary/v1');
    expect(Object.keys(statement.predicate).sort()).toEqual(
      [
        'dependencyLevels',
        'inputAttestations',
        'policy',
        'resourceUri',
        'slsaVersion',
        'timeVerified',
        'verificationResult',
        'verifiedLevels',
        'verifier',
      ].sort(),
    );
    expect(statement.predicate).toMatchObject({
      verifier: { id: 'https://verifier.example/gate', version: { 'service-release': '1.2.3' } },
      verificationResult: 'PASSED',
      slsaVersion: '1.0',
    });
  });

  it('says FAILED when the verify did not pass', () => {
    expect(parsed(vsaStatement({ ...input, passed: false })).predicate['verificationResult']).toBe('FAILED');
  });

  it("digests the policy's canonical content (checks sorted, once each)", () => {
    const policy = policyDescriptor(input.policy);
    expect(policy.uri).toBe(POLICY_URI);
    expect(policy.annotations.checks).toEqual(['in-step', 'sbom']);
    const content = JSON.stringify({
      checks: ['in-step', 'sbom'],
      releaseKey: 'b'.repeat(64),
      version: 'v1.0.0',
    });
    expect(policy.digest.sha256).toBe(createHash('sha256').update(content).digest('hex'));
  });
});

describe('vsaClaim', () => {
  it('reads back what was written', () => {
    const claim = vsaClaim(parsed(vsaStatement(input)));
    expect(claim).toMatchObject({
      result: 'PASSED',
      verifiedLevels: ['SLSA_BUILD_LEVEL_1'],
      policy: { checks: ['in-step', 'sbom'], version: 'v1.0.0' },
    });
  });

  it('refuses a policy whose checks were edited apart from its digest', () => {
    const statement = parsed(vsaStatement(input));
    (statement.predicate['policy'] as { annotations: { checks: string[] } }).annotations.checks.push(
      'provenance',
    );
    expect(vsaClaim(statement)).toBe("the summary's policy does not match its digest");
  });

  it('refuses another predicate type, no verifier, no result', () => {
    const statement = parsed(vsaStatement(input));
    expect(vsaClaim({ ...statement, predicateType: 'https://slsa.dev/provenance/v1' })).toMatch(
      /predicate type/,
    );
    expect(vsaClaim({ ...statement, predicate: { ...statement.predicate, verifier: {} } })).toMatch(
      /no verifier/,
    );
    expect(
      vsaClaim({ ...statement, predicate: { ...statement.predicate, verificationResult: undefined } }),
    ).toMatch(/no verificationResult/);
  });
});

describe('buildLevel', () => {
  it('claims 2 for a hosted CI, 1 for a host, 0 without provenance, never 3', () => {
    expect(
      buildLevel({ builderId: 'https://github.com/acme/svc/.github/workflows/release.yml@refs/heads/main' }),
    ).toBe('SLSA_BUILD_LEVEL_2');
    expect(buildLevel({ builderId: 'https://service-release.dev/builders/host/ci-box' })).toBe(
      'SLSA_BUILD_LEVEL_1',
    );
    expect(buildLevel(undefined)).toBe('SLSA_BUILD_LEVEL_0');
  });
});
