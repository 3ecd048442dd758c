import type Docker from 'dockerode';
import type { BaseContext } from '../../pipeline/context.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { CliMinimumChange } from '../../upgrade/cli-minimum.ts';
import type { ServiceRole, TargetImage, UpgradeFailure } from '../../upgrade/deployment-types.ts';
import type { NodeReport } from '../../upgrade/swarm/node-report.ts';
import type { RunningService } from '../../upgrade/swarm/swarm-types.ts';
import type { UpgradePlan } from '../../upgrade/swarm/upgrade-plan.ts';
import type { Proof, RestoreResult, UpgradeOutcome } from '../../upgrade/upgrade-outcome.ts';

/**
 * What every upgrade run carries, on Swarm (UpgradeContext) and on Compose
 * (compose/compose-context.ts): the target, where to read and change it, the deadlines, and what
 * the steps every run shares find and decide.
 */
export interface UpgradeRunContext extends BaseContext {
  /** `--to`: the release tag, as an image tag (`v1.4.0`). */
  tag: string;
  /** Role -> service name (`--service`, else the deployment's `services`). */
  serviceNames: Partial<Record<ServiceRole, string>>;
  /**
   * More services, by the artifact each runs as (`scheduler` -> `acme_cron`): roles run from a
   * shared image, named in `--service` or the deployment's `services`. Any other service of the
   * image is found on the engine (read-services-step.ts).
   */
  moreServices?: Record<string, string>;
  apiUrl: string;
  webUrl?: string;
  /** `--docker-host`, else DOCKER_HOST, else the default socket. */
  dockerHost: string;
  docker: Docker;
  store: ImageStore;
  trustedKey?: PublicSigningKey;
  timeoutMs: number;
  rollbackTimeoutMs: number;
  monitorMs: number;
  /** Deadline of each single probe (an HTTP GET, an engine read). */
  probeTimeoutMs: number;
  requireCliCompatible: boolean;
  startedAt: number;
  /** Filled by the steps, in order. */
  targets?: TargetImage[];
  /** The target API image's `min_cli_version`, from its label, when it carries one. */
  targetMinCli?: string;
  currentMinCli?: string;
  /** The upgraded API's `min_cli_version`, as it reports it. */
  upgradedMinCli?: string;
  inStepBefore?: boolean;
  cliChange?: CliMinimumChange;
  failure?: UpgradeFailure;
  restores: RestoreResult[];
  proof?: Proof;
  outcome?: UpgradeOutcome;
  /** What happened, with the time since the start: the report's timeline. */
  events: { ms: number; text: string }[];
}

/** A Swarm upgrade: the services as read, the plan, and the cluster per node at the end. */
export interface UpgradeContext extends UpgradeRunContext {
  running?: RunningService[];
  plan?: UpgradePlan;
  /** Services this run sent an update to: exactly what a failure puts back. */
  /** Names of the services this run sent an update to (several may share a role). */
  touched: Set<string>;
  /** The cluster per node at the end (read-nodes-step.ts). */
  nodes?: NodeReport[];
}

/**
 * What resolving and checking the target needs, shared by the Swarm and the Compose upgrade:
 * the steps that read only this run in both pipelines.
 */
export type TargetContext = BaseContext &
  Pick<
    UpgradeRunContext,
    'tag' | 'serviceNames' | 'store' | 'trustedKey' | 'targets' | 'targetMinCli' | 'events' | 'startedAt'
  >;

/** Add a line to the timeline (and the step's progress). */
export function record(ctx: Pick<UpgradeRunContext, 'events' | 'startedAt'>, text: string): void {
  ctx.events.push({ ms: Math.round(performance.now() - ctx.startedAt), text });
}
