import type { BaseContext } from '../../pipeline/context.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { CliMinimumChange } from '../../upgrade/cli-minimum.ts';
import type {
  ServiceRole,
  TargetArtifact,
  TargetImage,
  UpgradeFailure,
} from '../../upgrade/deployment-types.ts';
import type { Proof, RestoreResult, UpgradeOutcome } from '../../upgrade/upgrade-outcome.ts';
import type { ProveDeployment } from './prove-deployment.ts';

/**
 * What every upgrade run carries, whatever the engine (swarm/swarm-context.ts,
 * compose/compose-context.ts): the target, the URLs, the deadlines, and what the steps every run
 * shares find and decide. Nothing here names an engine: how to reach one (a Docker host, a
 * kubeconfig) is the engine's own context's.
 */
export interface UpgradeRunContext extends BaseContext {
  /** `--to`: the release tag, as an image tag (`v1.4.0`). */
  tag: string;
  /** Role -> service name (`--service`, else the deployment's `services`). */
  serviceNames: Partial<Record<ServiceRole, string>>;
  /**
   * More services, by the artifact each runs as (`scheduler` -> `acme_cron`): roles run from a
   * shared image, named in `--service` or the deployment's `services`. Any other service of the
   * image is found on the engine (swarm/read-swarm-step.ts).
   */
  moreServices?: Record<string, string>;
  apiUrl: string;
  /** The one web client's URL (or the first web client's, when a bare URL is given). */
  webUrl?: string;
  /** Several web clients (an app, an admin dashboard): each web artifact's URL, by its name. */
  webUrls?: Record<string, string>;
  /** Every web client that moves, by artifact -> its service (found by image, or named). */
  webServices?: Record<string, string>;
  /** The artifacts whose images move, found by the first step (role-services.ts `targetArtifacts`). */
  targetArtifacts?: TargetArtifact[];
  store: ImageStore;
  trustedKey?: PublicSigningKey;
  timeoutMs: number;
  rollbackTimeoutMs: number;
  monitorMs: number;
  /** Deadline of each single probe (an HTTP GET, an engine read). */
  probeTimeoutMs: number;
  requireCliCompatible: boolean;
  /** The verify checks the proof steps run (handed in by the program: upgrade imports no verify). */
  proveDeployment: ProveDeployment;
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

/**
 * What resolving and checking the target needs, shared by every engine's upgrade:
 * the steps that read only this run in each pipeline.
 */
export type TargetContext = BaseContext &
  Pick<
    UpgradeRunContext,
    | 'tag'
    | 'serviceNames'
    | 'targetArtifacts'
    | 'store'
    | 'trustedKey'
    | 'targets'
    | 'targetMinCli'
    | 'events'
    | 'startedAt'
  >;

/** Add a line to the timeline (and the step's progress). */
export function record(ctx: Pick<UpgradeRunContext, 'events' | 'startedAt'>, text: string): void {
  ctx.events.push({ ms: Math.round(performance.now() - ctx.startedAt), text });
}
