/**
 * The evidence the toolkit signs, as in-toto v1 statements (the payload of a DSSE envelope in a
 * Sigstore bundle v0.3, like the image signatures), and the OCI artifact types it is attached
 * under. A statement is made from its inputs alone, so the same inputs give the same bytes.
 */
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';

/** The predicate types: cosign's names for CycloneDX and SLSA v1, and this toolkit's release set. */
export const PREDICATE = {
  sbom: 'https://cyclonedx.org/bom',
  provenance: 'https://slsa.dev/provenance/v1',
  releaseSet: 'https://service-release.dev/release-set/v1',
} as const;

export type EvidenceKind = keyof typeof PREDICATE;

/**
 * The artifact type each kind's referrer was attached under before every bundle referrer carried
 * the Sigstore bundle artifact type (the kind is now its `dev.sigstore.bundle.predicateType`
 * annotation): still read, so releases made before verify and mirror as they did.
 */
export const FORMER_ARTIFACT_TYPE: Record<EvidenceKind, string> = {
  sbom: 'application/vnd.cyclonedx+json',
  provenance: 'application/vnd.in-toto.provenance+dsse',
  releaseSet: 'application/vnd.service-release.release-set+dsse',
};

export interface Subject {
  name: string;
  digest: Record<string, string>;
}

/** An in-toto statement's bytes: fixed key order, no whitespace, so equal inputs give equal bytes. */
export function statementBytes(
  subjects: readonly Subject[],
  predicateType: string,
  predicate: unknown,
): Buffer {
  return Buffer.from(JSON.stringify({ _type: STATEMENT_TYPE, subject: subjects, predicateType, predicate }));
}

/** An image as a subject: repository name (no host, so promotion to another store keeps it) and digest. */
export function imageSubject(repository: string, digest: string): Subject {
  const hex = /^sha256:([0-9a-f]{64})$/.exec(digest)?.[1];
  if (!hex) throw new TypeError(`not a sha256 digest: ${digest}`);
  return { name: repository, digest: { sha256: hex } };
}

export interface ParsedStatement {
  subject: Subject[];
  predicateType: string;
  predicate: Record<string, unknown>;
}

/** Read a statement back; a string says why it is not one. */
export function parseStatement(payload: Uint8Array): ParsedStatement | string {
  let value: { _type?: unknown; subject?: unknown; predicateType?: unknown; predicate?: unknown };
  try {
    value = JSON.parse(Buffer.from(payload).toString('utf8')) as typeof value;
  } catch {
    return 'payload is not JSON';
  }
  if (value._type !== STATEMENT_TYPE) return 'payload is not an in-toto v1 statement';
  if (typeof value.predicateType !== 'string') return 'statement has no predicate type';
  if (!Array.isArray(value.subject) || value.subject.length === 0) return 'statement has no subject';
  const subjects = value.subject as Subject[];
  if (subjects.some((s) => typeof s?.name !== 'string' || typeof s?.digest !== 'object' || !s.digest))
    return 'statement has a subject without a name and digest';
  return {
    subject: subjects,
    predicateType: value.predicateType,
    predicate: (value.predicate ?? {}) as Record<string, unknown>,
  };
}

/** The SBOM as a statement about its image: cosign's CycloneDX predicate, the SBOM itself inside. */
export function sbomStatement(repository: string, digest: string, sbom: string): Buffer {
  return statementBytes([imageSubject(repository, digest)], PREDICATE.sbom, JSON.parse(sbom));
}
