import type { VsaCheck } from '../../evidence/vsa-checks.ts';
import { writeFilesAtomically } from '../../files/atomic-write.ts';
import { packageVersion } from '../../files/package-root.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { SigningFormat } from '../../signing/cosign-tags.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { ProvenanceReading } from '../../verify/types.ts';
import type { VerifyContext } from './verify-context.ts';

export type SignedSummaries = NonNullable<VerifyContext['summaries']>;

/**
 * `--attest`, after a verify of a deployment or of the registry alone: sign a summary for each
 * image of `artifacts` (one per image, however many roles run it) and, when they are the whole
 * release, one for the release set, with the checks that verify held them to; `in-step` only for
 * the images a live deployment was seen running. PASSED ones are attached to every digest they
 * cover; all are written to `--out` (a FAILED one only there).
 */
export async function signSummaries(input: {
  store: ImageStore;
  releaseKey: PublicSigningKey;
  attest: NonNullable<VerifyContext['attest']>;
  /** Each image once, under the artifact that builds it, with every role that runs it. */
  artifacts: { name: string; repository: string; roles?: string[] }[];
  tag: string;
  checks: VsaCheck[];
  inStep: readonly string[];
  wholeRelease: boolean;
  passed: boolean;
  provenance: readonly ProvenanceReading[];
  /** `signing.formats`: each summary also goes into cosign's `.att` unless `legacy` is left out. */
  formats?: readonly SigningFormat[] | undefined;
}): Promise<SignedSummaries> {
  const { attestRelease, releaseImages } = await import('../../evidence/attest-release.ts');
  const images = await releaseImages(input.store, input.artifacts, input.tag);
  const summaries = await attestRelease({
    store: input.store,
    releaseKey: input.releaseKey,
    verifierKey: input.attest.key,
    verifier: { id: input.attest.verifierId, version: packageVersion() },
    images,
    policy: { checks: input.checks, releaseKey: input.releaseKey.keyId, version: input.tag },
    inStep: input.inStep,
    passed: input.passed,
    wholeRelease: input.wholeRelease,
    madeFrom: rcDigests(input.provenance),
    timeVerified: new Date().toISOString(),
    ...(input.formats ? { formats: input.formats } : {}),
  });
  if (input.attest.out) {
    const lines = summaries.map((s) => `${Buffer.from(s.bundle).toString('utf8')}\n`).join('');
    await writeFilesAtomically([{ path: input.attest.out, content: lines }]);
  }
  const rolesOf = new Map(input.artifacts.map((a) => [a.name, a.roles ?? []]));
  return summaries.map((s) => {
    const roles = rolesOf.get(s.about) ?? [];
    return {
      about: s.about,
      ...(roles.length > 1 ? { roles } : {}),
      resourceUri: s.resourceUri,
      result: input.passed ? 'PASSED' : 'FAILED',
      attached: s.attached,
    } as const;
  });
}

/** One summary as a line: what it is about (an image's roles named), its result and where it went. */
export function summaryLine(s: SignedSummaries[number], out: string | undefined): string {
  const about = s.roles ? `${s.about} (run as ${s.roles.join(', ')})` : s.about;
  const where = s.attached.length ? `attached to ${s.attached.length} digest(s)` : 'not attached';
  return `verification summary ${s.result} for ${about}: ${where}${out ? `, in ${out}` : ''}`;
}

/** The rc digests a release's images (and their platform images) name, by repository. */
function rcDigests(provenance: readonly ProvenanceReading[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const p of provenance) {
    const digests = [p.madeFrom, ...(p.platforms ?? []).map((c) => c.madeFrom)];
    found[p.repository] = digests.filter((d): d is string => d !== undefined);
  }
  return found;
}
