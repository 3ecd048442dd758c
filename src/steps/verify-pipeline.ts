import type { Step } from '../pipeline/step.ts';
import { verifySignaturesStep } from './sign-verify.ts';
import { verifyCheckStep } from './verify-check.ts';
import type { VerifyContext } from './verify-context.ts';
import { verifyProbeStep } from './verify-probe.ts';
import { verifyRegistryStep } from './verify-registry.ts';

/**
 * `release verify`'s pipeline. Listed in src/pipeline/pipelines.ts with the others; kept in its
 * own module so the operator's command does not load every other pipeline's steps (the build and
 * signing steps pull in Vite, esbuild and Sigstore: seconds of start-up on a small machine).
 */
export const verifyPipeline: readonly Step<VerifyContext>[] = [
  verifyProbeStep, // api, worker, web and svc read at once, each within its own deadline
  verifyRegistryStep, // --registry: the digest each expected tag names vs the digest running
  verifySignaturesStep, // signing.publicKey and a store: is each image's digest validly signed
  verifyCheckStep, // one tag, nothing unknown, API = worker, the CLI's minimum and PATH order
];
