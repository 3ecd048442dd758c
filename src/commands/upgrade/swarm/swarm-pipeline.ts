import type { Step } from '../../../pipeline/step.ts';
import { checkTargetSignaturesStep } from '../check-target-signatures-step.ts';
import { resolveTargetsStep } from '../resolve-targets-step.ts';
import { applySwarmStep } from './apply-swarm-step.ts';
import { planSwarmStep } from './plan-swarm-step.ts';
import { proveSwarmRollbackStep } from './prove-swarm-rollback-step.ts';
import { proveSwarmUpgradeStep } from './prove-swarm-upgrade-step.ts';
import { readSwarmNodesStep } from './read-swarm-nodes-step.ts';
import { readSwarmStep } from './read-swarm-step.ts';
import { rollbackSwarmStep } from './rollback-swarm-step.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

/**
 * `release upgrade`: API and worker move as one unit (spec section 9, item 5), web after them;
 * any failure puts every touched service back. Nothing changes before the plan step has passed.
 */
export const swarmUpgradePipeline: readonly Step<SwarmUpgradeContext>[] = [
  resolveTargetsStep, // <tag> -> the digest of each artifact in the store (and the API's new minimum)
  checkTargetSignaturesStep, // rc/release with signing.publicKey: every target digest signed
  readSwarmStep, // each service's whole spec, version index, running digest and version
  planSwarmStep, // what changes, in which order; min_cli_version warning or refusal
  applySwarmStep, // API + worker at once: converge, report <tag>; then web
  proveSwarmUpgradeStep, // the verify checks: in step on <tag>, else it counts as a failure
  rollbackSwarmStep, // on any failure: every touched service back to its previous spec, converged
  proveSwarmRollbackStep, // the verify checks again: in step on the old tag
  readSwarmNodesStep, // the cluster per node: lost nodes, unplaced tasks, what each node runs
];
