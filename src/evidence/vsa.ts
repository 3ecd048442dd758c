import { createHash } from 'node:crypto';
import { HOST_BUILDER } from './provenance.ts';
import type { ParsedStatement, Subject } from './statements.ts';
import { statementBytes } from './statements.ts';
import { VSA_CHECKS, type VsaCheck } from './vsa-checks.ts';

/**
 * SLSA Verification Summary Attestations (v1): what `release verify --attest` signs with the
 * verifier's key once a release checked out, so a gate checks one statement instead of running
 * every check again. Pure: the statement is made from its inputs alone.
 */
export const VSA_PREDICATE = 'https://slsa.dev/verification_summary/v1';
/**
 * The referrer's artifact type: its own (like the provenance's), so the release key's evidence
 * readers never see it and a gate asks the registry for just the summaries.
 */
export const VSA_ARTIFACT_TYPE = 'application/vnd.in-toto.vsa+dsse';
/** The policy document's type: which checks `release verify` ran, and the release key it held them to. */
export const POLICY_URI = 'https://service-release.dev/verify-policy/v1';
export const DEFAULT_VERIFIER_ID = 'https://service-release.dev/verifier';

export interface VsaPolicy {
  checks: VsaCheck[];
  /** The release key every signature and attestation was checked against (SPKI SHA-256 hex). */
  releaseKey: string;
  /** The tag the release was verified at. */
  version: string;
}

export interface VsaInput {
  subjects: Subject[];
  verifier: { id: string; version: string };
  /** RFC 3339, the clock's: a summary says when it was true. */
  timeVerified: string;
  resourceUri: string;
  policy: VsaPolicy;
  inputAttestations: { uri: string; digest: Record<string, string> }[];
  passed: boolean;
  /** `SLSA_BUILD_LEVEL_1`...; on FAILED, `FAILED` (the spec's SlsaResult for a failed policy). */
  verifiedLevels: string[];
}

/**
 * The policy as a resource descriptor: its content inline under `annotations` (so a reader needs
 * no second fetch) and its digest over the canonical JSON (so the content cannot be edited apart
 * from the digest a gate may pin).
 */
export function policyDescriptor(policy: VsaPolicy) {
  const content = canonicalPolicy(policy);
  return {
    uri: POLICY_URI,
    digest: { sha256: createHash('sha256').update(content).digest('hex') },
    annotations: JSON.parse(content) as VsaPolicy,
  };
}

function canonicalPolicy(policy: VsaPolicy): string {
  return JSON.stringify({
    checks: [...new Set(policy.checks)].sort(),
    releaseKey: policy.releaseKey,
    version: policy.version,
  });
}

/** The VSA statement's bytes. */
export function vsaStatement(input: VsaInput): Buffer {
  return statementBytes(input.subjects, VSA_PREDICATE, {
    verifier: { id: input.verifier.id, version: { 'service-release': input.verifier.version } },
    timeVerified: input.timeVerified,
    resourceUri: input.resourceUri,
    policy: policyDescriptor(input.policy),
    inputAttestations: input.inputAttestations,
    verificationResult: input.passed ? 'PASSED' : 'FAILED',
    verifiedLevels: input.verifiedLevels,
    // Each release image is checked as built; its base image's own level is its maker's to state.
    dependencyLevels: {},
    slsaVersion: '1.0',
  });
}

/** What a checked reader takes from a VSA. */
export interface VsaClaim {
  subjects: Subject[];
  verifierId: string;
  timeVerified: string;
  resourceUri: string;
  result: string;
  verifiedLevels: string[];
  policy: VsaPolicy;
}

/** One summary as read (from a file line or a referrer), before it is judged against a release. */
export interface VsaReading {
  /** `vsa.jsonl line 2`, `acme-api@sha256:… referrer sha256:…`. */
  source: string;
  /** The checked claim; undefined when the bundle did not verify or is not a VSA (`reason`). */
  claim?: VsaClaim;
  reason?: string;
}

/** Read a VSA's predicate; a string says why it is not one this toolkit can judge. */
export function vsaClaim(statement: ParsedStatement): VsaClaim | string {
  if (statement.predicateType !== VSA_PREDICATE) return `predicate type is not ${VSA_PREDICATE}`;
  const p = statement.predicate as {
    verifier?: { id?: unknown };
    timeVerified?: unknown;
    resourceUri?: unknown;
    policy?: { uri?: unknown; digest?: { sha256?: unknown }; annotations?: Partial<VsaPolicy> };
    verificationResult?: unknown;
    verifiedLevels?: unknown;
  };
  if (typeof p.verifier?.id !== 'string') return 'the summary names no verifier';
  if (typeof p.verificationResult !== 'string') return 'the summary has no verificationResult';
  if (typeof p.timeVerified !== 'string' || typeof p.resourceUri !== 'string')
    return 'the summary has no timeVerified or resourceUri';
  const policy = p.policy?.annotations;
  if (p.policy?.uri !== POLICY_URI || !policy || !Array.isArray(policy.checks))
    return `the summary's policy is not ${POLICY_URI} with its checks`;
  const checks = policy.checks.filter((c): c is VsaCheck => (VSA_CHECKS as readonly string[]).includes(c));
  const parsed: VsaPolicy = {
    checks,
    releaseKey: String(policy.releaseKey ?? ''),
    version: String(policy.version ?? ''),
  };
  const digest = createHash('sha256').update(canonicalPolicy(parsed)).digest('hex');
  // A policy whose content does not hash to its digest was edited (or lists unknown checks).
  if (p.policy.digest?.sha256 !== digest) return "the summary's policy does not match its digest";
  return {
    subjects: statement.subject,
    verifierId: p.verifier.id,
    timeVerified: p.timeVerified,
    resourceUri: p.resourceUri,
    result: p.verificationResult,
    verifiedLevels: Array.isArray(p.verifiedLevels) ? p.verifiedLevels.map(String) : [],
    policy: parsed,
  };
}

/**
 * The SLSA build level signed provenance supports: 2 when a hosted CI built it (the builder id
 * `builderId` gives outside one names a host), 1 for provenance alone, 0 without. The toolkit can
 * prove the provenance is signed by the release key; whether the build platform was hardened
 * (level 3) it cannot, so it never claims it.
 */
export function buildLevel(provenance: { builderId: string } | undefined): string {
  if (!provenance) return 'SLSA_BUILD_LEVEL_0';
  return provenance.builderId.startsWith(HOST_BUILDER) ? 'SLSA_BUILD_LEVEL_1' : 'SLSA_BUILD_LEVEL_2';
}
