import type Docker from 'dockerode';
import type { ComposeCli, ComposeProject } from '../../../engine/docker/compose-cli.ts';
import type { BaseContext } from '../../../pipeline/context.ts';
import type { ImageStore } from '../../../registry/store.ts';
import type { PublicSigningKey } from '../../../signing/keys.ts';
import type { CliMinimumChange } from '../../../upgrade/cli-minimum.ts';
import type { ComposePlan } from '../../../upgrade/compose-plan.ts';
import type { ComposeContainer, ComposeService } from '../../../upgrade/compose-types.ts';
import type { ServiceRole, TargetImage } from '../../../upgrade/swarm-types.ts';
import type {
  Proof,
  RestoreResult,
  UpgradeFailure,
  UpgradeOutcome,
} from '../../../upgrade/upgrade-outcome.ts';

export interface ComposeUpgradeContext extends BaseContext {
  tag: string;
  /** Role -> Compose service (`--service`, else the deployment's `services`). */
  serviceNames: Partial<Record<ServiceRole, string>>;
  apiUrl: string;
  webUrl?: string;
  dockerHost: string;
  docker: Docker;
  store: ImageStore;
  trustedKey?: PublicSigningKey;
  timeoutMs: number;
  rollbackTimeoutMs: number;
  monitorMs: number;
  probeTimeoutMs: number;
  requireCliCompatible: boolean;
  startedAt: number;
  cli: ComposeCli;
  /** The user's files (absolute), the project name passed with `-p`, its directory. */
  project: ComposeProject;
  /** Where our override lives: `<project dir>/.release/<project>.override.yml`. */
  overridePath: string;
  /** The override as it was before this run (undefined: there was none): what a rollback puts back. */
  previousOverride?: string;
  /** `version:` of the user's first file, copied into the override (Compose v1 merges only equal versions). */
  fileVersion?: string;
  /** Filled by the steps, in order. */
  targets?: TargetImage[];
  targetMinCli?: string;
  services?: ComposeService[];
  containersBefore?: ComposeContainer[];
  currentMinCli?: string;
  upgradedMinCli?: string;
  /** The API's version before the upgrade: what the rollback must bring back. */
  fromTag?: string;
  inStepBefore?: boolean;
  plan?: ComposePlan;
  cliChange?: CliMinimumChange;
  /** This run wrote the override: a rollback must put the previous one back. */
  overrideWritten: boolean;
  /** Services this run asked Compose to recreate: exactly what a failure puts back. */
  touched: Set<string>;
  failure?: UpgradeFailure;
  restores: RestoreResult[];
  proof?: Proof;
  outcome?: UpgradeOutcome;
  /** Each service's containers at the end, for the report (what runs where, after all). */
  containersAfter?: ComposeContainer[];
  events: { ms: number; text: string }[];
}

/** The files the CLI is given: the user's first, then the override when there is one. */
export function composeFiles(ctx: ComposeUpgradeContext, withOverride: boolean): string[] {
  return withOverride ? [...ctx.project.files, ctx.overridePath] : ctx.project.files;
}
