import type { NodeReport } from '../../../upgrade/swarm/swarm-node-report.ts';
import type { SwarmPlan } from '../../../upgrade/swarm/swarm-plan.ts';
import type { RunningService } from '../../../upgrade/swarm/swarm-types.ts';
import type { DockerEngineContext } from '../docker/docker-engine.ts';
import type { UpgradeRunContext } from '../upgrade-context.ts';

/** A Swarm upgrade: the manager it talks to, the services as read, the plan, the nodes at the end. */
export interface SwarmUpgradeContext extends UpgradeRunContext, DockerEngineContext {
  running?: RunningService[];
  plan?: SwarmPlan;
  /** Names of the services this run sent an update to (several may share a role): exactly what a failure puts back. */
  touched: Set<string>;
  /** The cluster per node at the end (read-nodes-step.ts). */
  nodes?: NodeReport[];
}
