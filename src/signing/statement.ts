/**
 * What a signature says: an in-toto Statement whose one subject is the image — its repository and
 * manifest digest, never a tag (a tag can move; a digest names exact bytes). The predicate type is
 * the one cosign uses for image signatures in the Sigstore bundle format.
 */
export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'https://sigstore.dev/cosign/sign/v1';

/** The signed claim: this repository's manifest with this digest. */
export interface ImageClaim {
  /**
   * The repository name within the store (`service-api`). The host is left out on purpose so a
   * signature stays valid when promotion copies the image to another store, while it still
   * cannot be moved to another repository.
   */
  repository: string;
  /** `sha256:<64 hex>` */
  digest: string;
  /**
   * A full release re-stamped from an rc: the rc manifest digest it was made from. The
   * signature then binds the release's bytes to the tested rc's, and verify can hold the release
   * to it (same code layers).
   */
  madeFrom?: string;
  /**
   * A release made from an rc: what of it was rebuilt or re-written rather than the rc's bytes,
   * and why (`the CLI archive`: rebuilt, `bin/acme` differs in version strings only). Recorded in
   * the signed statement, so the signature vouches for what differs from the rc.
   */
  reversion?: SignedReversion[];
}

export interface SignedReversion {
  /** The part re-versioned: `cli`, or an image artifact's name. */
  part: string;
  strategy: string;
  differs: { path: string; renamed?: string; reason: string }[];
}

const DIGEST = /^sha256:([0-9a-f]{64})$/;

export function statementFor(claim: ImageClaim): Buffer {
  const hex = DIGEST.exec(claim.digest)?.[1];
  if (!hex) throw new TypeError(`not a sha256 digest: ${claim.digest}`);
  const from = claim.madeFrom === undefined ? undefined : DIGEST.exec(claim.madeFrom)?.[1];
  if (claim.madeFrom !== undefined && !from) throw new TypeError(`not a sha256 digest: ${claim.madeFrom}`);
  const statement = {
    _type: STATEMENT_TYPE,
    subject: [{ name: claim.repository, digest: { sha256: hex } }],
    predicateType: PREDICATE_TYPE,
    predicate: {
      ...(from ? { madeFrom: { name: claim.repository, digest: { sha256: from } } } : {}),
      ...(claim.reversion?.length ? { reversion: claim.reversion } : {}),
    },
  };
  return Buffer.from(JSON.stringify(statement));
}

/** Read the claim back out of a verified payload; a string says why it is not one we made. */
export function claimOf(payloadType: string, payload: Buffer): ImageClaim | string {
  if (payloadType !== PAYLOAD_TYPE) return `payload type is "${payloadType}", not ${PAYLOAD_TYPE}`;
  let statement: {
    _type?: unknown;
    predicateType?: unknown;
    subject?: { name?: unknown; digest?: { sha256?: unknown } }[];
    predicate?: { madeFrom?: { digest?: { sha256?: unknown } } };
  };
  try {
    statement = JSON.parse(payload.toString('utf8')) as typeof statement;
  } catch {
    return 'payload is not JSON';
  }
  if (statement._type !== STATEMENT_TYPE) return 'payload is not an in-toto statement';
  if (statement.predicateType !== PREDICATE_TYPE) return `predicate type is not ${PREDICATE_TYPE}`;
  const subjects = Array.isArray(statement.subject) ? statement.subject : [];
  // Exactly one subject: a statement naming several images would let one signature vouch for all.
  if (subjects.length !== 1) return `payload names ${subjects.length} subjects, expected exactly one image`;
  const [subject] = subjects;
  const hex = subject?.digest?.sha256;
  if (typeof subject?.name !== 'string' || typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) {
    return 'payload subject has no repository name and sha256 digest';
  }
  const from = statement.predicate?.madeFrom?.digest?.sha256;
  if (from !== undefined && (typeof from !== 'string' || !/^[0-9a-f]{64}$/.test(from)))
    return 'payload names a source image without a sha256 digest';
  return {
    repository: subject.name,
    digest: `sha256:${hex}`,
    ...(from ? { madeFrom: `sha256:${from}` } : {}),
  };
}
