import type Docker from 'dockerode';
import type { BaseContext } from '../../pipeline/context.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { CliMinimumChange } from '../../upgrade/cli-minimum.ts';
import type { NodeReport } from '../../upgrade/node-report.ts';
import type { RunningService, ServiceRole, TargetImage } from '../../upgrade/swarm-types.ts';
import type { Proof, RestoreResult, UpgradeFailure, UpgradeOutcome } from '../../upgrade/upgrade-outcome.ts';
import type { UpgradePlan } from '../../upgrade/upgrade-plan.ts';

export interface UpgradeContext extends BaseContext {
  /** `--to`: the release tag, as an image tag (`v1.4.0`). */
  tag: string;
  /** Role -> Swarm service name (`--service`, else the deployment's `services`). */
  serviceNames: Partial<Record<ServiceRole, string>>;
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
  running?: RunningService[];
  currentMinCli?: string;
  /** The upgraded API's `min_cli_version`, as it reports it. */
  upgradedMinCli?: string;
  inStepBefore?: boolean;
  plan?: UpgradePlan;
  cliChange?: CliMinimumChange;
  /** Services this run sent an update to: exactly what a failure puts back. */
  touched: Set<ServiceRole>;
  failure?: UpgradeFailure;
  restores: RestoreResult[];
  proof?: Proof;
  outcome?: UpgradeOutcome;
  /** The cluster per node at the end (read-nodes-step.ts). */
  nodes?: NodeReport[];
  /** What happened, with the time since the start: the report's timeline. */
  events: { ms: number; text: string }[];
}

/**
 * What resolving and checking the target needs, shared by the Swarm and the Compose upgrade:
 * the steps that read only this run in both pipelines.
 */
export type TargetContext = BaseContext &
  Pick<
    UpgradeContext,
    'tag' | 'serviceNames' | 'store' | 'trustedKey' | 'targets' | 'targetMinCli' | 'events' | 'startedAt'
  >;

/** Add a line to the timeline (and the step's progress). */
export function record(ctx: Pick<UpgradeContext, 'events' | 'startedAt'>, text: string): void {
  ctx.events.push({ ms: Math.round(performance.now() - ctx.startedAt), text });
}
