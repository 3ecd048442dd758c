import type { Step } from '../../../pipeline/step.ts';
import { checkTargetSignaturesStep } from '../check-target-signatures-step.ts';
import { resolveTargetsStep } from '../resolve-targets-step.ts';
import { applyComposeStep } from './apply-compose-step.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';
import { findComposeServicesStep } from './find-compose-services-step.ts';
import { planComposeStep } from './plan-compose-step.ts';
import { proveComposeRollbackStep, proveComposeUpgradeStep } from './prove-compose-steps.ts';
import { readComposeAfterStep } from './read-compose-after-step.ts';
import { readComposeStep } from './read-compose-step.ts';
import { rollbackComposeStep } from './rollback-compose-step.ts';

/**
 * `release upgrade --compose`: API and worker (and every service of their images) move as one
 * unit on a Compose project, web after them; any failure puts the previous override back and
 * recreates every touched service. The user's compose files are read, never written.
 */
export const composeUpgradePipeline: readonly Step<ComposeUpgradeContext>[] = [
  findComposeServicesStep, // each role's service: named with --service, else by image and the role's command
  resolveTargetsStep, // <tag> -> the digest of each artifact in the store (and the API's new minimum)
  checkTargetSignaturesStep, // rc/release with signing.publicKey: every target digest signed
  readComposeStep, // the resolved model, every container of the project, the API's version
  planComposeStep, // which services move (same image), one-shots first, stop-first; min_cli_version
  applyComposeStep, // override, pull, one-shots, API + worker in one up -d: converge, report <tag>; web
  proveComposeUpgradeStep, // the verify checks: in step on <tag>, else it counts as a failure
  rollbackComposeStep, // on any failure: previous override, up -d again, previous digests and versions
  proveComposeRollbackStep, // the verify checks again: in step on the old tag
  readComposeAfterStep, // what every container runs at the end, for the report
];
