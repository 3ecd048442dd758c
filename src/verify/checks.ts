import { DEFAULT_SKEW_POLICY, type SkewPolicy, type SkewVerdict } from '../version/skew.ts';
import { checkApiWorker } from './checks/check-api-worker.ts';
import { checkCli } from './checks/check-cli.ts';
import { checkJobs } from './checks/check-jobs.ts';
import { checkMinCliVersion } from './checks/check-min-cli-version.ts';
import { checkReadable } from './checks/check-readable.ts';
import { checkRegistry } from './checks/check-registry.ts';
import { checkSharedTag } from './checks/check-shared-tag.ts';
import { checkSignatures } from './checks/check-signatures.ts';
import { gradeDeployment } from './checks/check-skew.ts';
import { checkVersionQuality } from './checks/check-version-quality.ts';
import { checkWorkerEvidence } from './checks/check-worker-evidence.ts';
import type { FixContext, Naming } from './fixes.ts';
import { type Reference, referenceOf } from './reference.ts';
import type { ArtifactName, Finding, ProbeResult, RegistryReading, SignatureReading } from './types.ts';

// Each check lives in a file of its own (check-*.ts); this one runs them in the order an operator
// fixes what they find. The checks are exported from here too, as they were before the split.
export { API_WORKER_CONSEQUENCE, checkApiWorker } from './checks/check-api-worker.ts';
export { checkCli } from './checks/check-cli.ts';
export { checkJobs } from './checks/check-jobs.ts';
export { checkMinCliVersion } from './checks/check-min-cli-version.ts';
export { checkReadable } from './checks/check-readable.ts';
export { checkSharedTag } from './checks/check-shared-tag.ts';
export { checkVersionQuality } from './checks/check-version-quality.ts';
export { checkWorkerEvidence } from './checks/check-worker-evidence.ts';
export { isComparable, type Reference, referenceOf } from './reference.ts';

/** Everything the checks look at. Pure data: the probes have already done the IO. */
export interface CheckInput {
  apiUrl: string;
  results: ProbeResult[];
  /** Artifacts whose probe was asked for (a missing one is then a finding, not a skip). */
  probed: ArtifactName[];
  expect?: string;
  images: FixContext['images'];
  /** `--registry`: the expected tag's digest per image against the digests running. */
  registry?: RegistryReading[];
  /** Signatures of the images' digests; `requireSignature` makes a missing one drift. */
  signatures?: SignatureReading[];
  requireSignature?: boolean;
  /** How far each artifact may be from the API (config `skew:`); the default is "equal". */
  skew?: SkewPolicy;
  /** The service's own version variables and CLI, for the fixes (fixes.ts). */
  naming?: Naming;
}

export interface CheckOutcome {
  reference: Reference | undefined;
  findings: Finding[];
  /** Each artifact against the API, graded by the skew policy. */
  skew: SkewVerdict[];
}

/**
 * All checks of one deployment. The order of findings is the order an operator should fix them:
 * what could not be read, then what cannot say its version, then what is at the wrong one.
 */
export function checkDeployment(input: CheckInput): CheckOutcome {
  // A job is judged by its last run (checkJobs), never as something that serves.
  const live = input.results.filter(
    (r) => r.version !== undefined && r.running !== false && r.name !== 'job',
  );
  const reference = referenceOf(live, input.expect);
  const ctx: FixContext = {
    apiUrl: input.apiUrl,
    images: input.images,
    tag: reference?.tag,
    ...(input.naming ? { naming: input.naming } : {}),
  };
  const policy = input.skew ?? DEFAULT_SKEW_POLICY;
  const findings = [
    ...checkReadable(
      input.results.filter((r) => r.name !== 'job'),
      input.probed,
      ctx,
    ),
    ...checkJobs(input.results, reference, ctx),
    ...input.results.flatMap((r) => checkWorkerEvidence(r)),
    ...live.flatMap((r) => checkVersionQuality(r, ctx, policy)),
    // A config (naming) without a CLI: nothing is judged by the API's minimum.
    ...checkMinCliVersion(input.results, { noCli: input.naming !== undefined && !input.naming.cli }),
    ...checkApiWorker(live, policy, ctx.naming?.serverVariable),
    ...checkCli(live, ctx),
    ...checkSharedTag(live, reference, ctx, policy),
    ...checkRegistry(input.registry ?? []),
    ...checkSignatures(input.signatures ?? [], Boolean(input.requireSignature)),
  ];
  return { reference, findings, skew: gradeDeployment(live, policy) };
}
