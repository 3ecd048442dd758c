import type { Option } from 'commander';
import type { ReleaseConfig } from '../config/schema.ts';
import type { BaseContext } from '../pipeline/context.ts';
import type { VerifyTarget } from '../verify/probe-deployment.ts';
import type { WorkerEngine } from '../verify/worker-engines.ts';

/** The parsed flags of `release verify` or `release watch`, by commander's names (`dockerHost`). */
export type TargetFlags = Readonly<Record<string, unknown>>;

/** One entry of the config's `deployments`. */
export type ConfiguredDeployment = ReleaseConfig['deployments'][number];

/** Who asks for a target: its error codes and hints carry the command's name. */
export interface TargetRequest {
  base: BaseContext;
  command: 'verify' | 'watch';
  /** `VERIFY`, `WATCH`: the prefix of the command's error codes. */
  code: string;
}

/** What of a target an engine fills: where its worker is read, and whether on every node. */
export type EngineTargetPart = Pick<VerifyTarget, 'engine' | 'docker' | 'urlPerNode'>;

/**
 * One deployment engine as `release verify` and `release watch` see it, the one place their
 * flags, their targets and their reader come from (deployment-engines.ts lists the entries):
 * cheap to import, the reader loaded only when a deployment is read. `release upgrade` has its
 * own side of the same engines (src/commands/upgrade/engines.ts), which verify may not import.
 */
export interface DeploymentEngineEntry {
  /** The reader's name (`compose`, `docker`), as a target names it in `engine.name`. */
  name: string;
  /** What it reads, for help and docs ("a Compose project"). */
  title: string;
  /**
   * The key of a config deployment run on this engine (`deployments[].compose`): `--all` reads
   * such a deployment's worker through `fromConfig`, unless it has a `workerUrl`.
   */
  configKey?: keyof ConfiguredDeployment;
  /** Its flags on verify and watch, in help order; refused beside `--all` and `--manifests`. */
  options: readonly Option[];
  /** Its flags given wrongly (`--project-name` without `--compose`): the refusal, before anything is read. */
  refuse?(flags: TargetFlags, request: TargetRequest): Error | undefined;
  /** The target part the flags ask for, undefined when they name none of this engine. */
  fromFlags(flags: TargetFlags, request: TargetRequest): Promise<EngineTargetPart | undefined>;
  /** The target part of a configured deployment that has `configKey`. */
  fromConfig?(deployment: ConfiguredDeployment, base: BaseContext): Promise<EngineTargetPart | undefined>;
  /** Verify's reader of this engine: loaded on demand. */
  reader(): Promise<WorkerEngine>;
}

/** Commander's names of an entry's flags (`--docker-host` -> `dockerHost`). */
export function flagNames(entry: Pick<DeploymentEngineEntry, 'options'>): string[] {
  return entry.options.map((option) => option.attributeName());
}

/** A flag given: true, a string, a non-empty list (a repeatable flag's default is no flag). */
export function given(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== false;
}
