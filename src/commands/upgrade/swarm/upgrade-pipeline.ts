import type { Step } from '../../../pipeline/step.ts';
import { checkTargetSignaturesStep } from '../check-target-signatures-step.ts';
import { resolveTargetsStep } from '../resolve-targets-step.ts';
import { applyUpgradeStep } from './apply-upgrade-step.ts';
import { findSwarmServicesStep } from './find-swarm-services-step.ts';
import { planUpgradeStep } from './plan-upgrade-step.ts';
import { proveRollbackStep } from './prove-rollback-step.ts';
import { proveUpgradeStep } from './prove-upgrade-step.ts';
import { readNodesStep } from './read-nodes-step.ts';
import { readServicesStep } from './read-services-step.ts';
import { rollbackStep } from './rollback-step.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

/**
 * `release upgrade`: API and worker move as one unit (spec section 9, item 5), web after them;
 * any failure puts every touched service back. Nothing changes before the plan step has passed.
 */
export const upgradePipeline: readonly Step<SwarmUpgradeContext>[] = [
  findSwarmServicesStep, // each role's service: named with --service, else by image and the role's command
  resolveTargetsStep, // <tag> -> the digest of each artifact in the store (and the API's new minimum)
  checkTargetSignaturesStep, // rc/release with signing.publicKey: every target digest signed
  readServicesStep, // each service's whole spec, version index, running digest and version
  planUpgradeStep, // what changes, in which order; min_cli_version warning or refusal
  applyUpgradeStep, // API + worker at once: converge, report <tag>; then web
  proveUpgradeStep, // the verify checks: in step on <tag>, else it counts as a failure
  rollbackStep, // on any failure: every touched service back to its previous spec, converged
  proveRollbackStep, // the verify checks again: in step on the old tag
  readNodesStep, // the cluster per node: lost nodes, unplaced tasks, what each node runs
];
