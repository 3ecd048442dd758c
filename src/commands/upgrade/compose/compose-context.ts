import type { ComposeCli, ComposeProject } from '../../../deployment-engines/compose/compose-cli.ts';
import type { ComposePlan } from '../../../upgrade/compose/compose-plan.ts';
import type { ComposeContainer, ComposeService } from '../../../upgrade/compose/compose-types.ts';
import type { ServiceRole } from '../../../upgrade/deployment-types.ts';
import type { DockerEngineContext } from '../docker/docker-engine.ts';
import type { UpgradeRunContext } from '../upgrade-context.ts';

/**
 * A Compose upgrade: the engine of the project's containers, the project, its override, its
 * containers before and after, the plan.
 */
export interface ComposeUpgradeContext extends UpgradeRunContext, DockerEngineContext {
  cli: ComposeCli;
  /** The user's files (absolute), the project name passed with `-p`, its directory. */
  project: ComposeProject;
  /** Where our override lives: `<project dir>/.release/<project>.override.yml`. */
  overridePath: string;
  /** The override as it was before this run (undefined: there was none): what a rollback puts back. */
  previousOverride?: string;
  /** `version:` of the user's first file, copied into the override (Compose v1 merges only equal versions). */
  fileVersion?: string;
  /** The resolved model before the upgrade (`docker compose config`), read once for both first steps. */
  modelBefore?: unknown;
  services?: ComposeService[];
  /** Roles whose service was found (not named), with why: the plan's WHY for them. */
  foundWhy?: Partial<Record<ServiceRole, string>>;
  /** Service -> the role its command runs, for the services of released images. */
  serviceRoles?: Record<string, ServiceRole>;
  containersBefore?: ComposeContainer[];
  /** The API's version before the upgrade: what the rollback must bring back. */
  fromTag?: string;
  plan?: ComposePlan;
  /** This run wrote the override: a rollback must put the previous one back. */
  overrideWritten: boolean;
  /** Services this run asked Compose to recreate: exactly what a failure puts back. */
  touched: Set<string>;
  /** Each service's containers at the end, for the report (what runs where, after all). */
  containersAfter?: ComposeContainer[];
}

/** The files the CLI is given: the user's first, then the override when there is one. */
export function composeFiles(ctx: ComposeUpgradeContext, withOverride: boolean): string[] {
  return withOverride ? [...ctx.project.files, ctx.overridePath] : ctx.project.files;
}
