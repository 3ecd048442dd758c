import type { ReleaseConfig } from '../../config/schema.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

/** The parsed `release upgrade` flags by commander's names (`dockerHost`): each engine reads its own. */
export type EngineFlags = Readonly<Record<string, unknown>>;

/** One entry of the config's `deployments`. */
export type ConfiguredDeployment = ReleaseConfig['deployments'][number];

/**
 * What `release upgrade` settles before it knows the engine, the one input every engine opens
 * its context from: the target, the services by role, the URLs, the store and key, the deadlines;
 * the flags and the config's deployment for what only the engine reads (`--compose`, its files).
 */
export type UpgradeInput = Pick<
  UpgradeRunContext,
  | 'tag'
  | 'serviceNames'
  | 'apiUrl'
  | 'webUrl'
  | 'webUrls'
  | 'store'
  | 'trustedKey'
  | 'timeoutMs'
  | 'rollbackTimeoutMs'
  | 'monitorMs'
  | 'requireCliCompatible'
  | 'proveDeployment'
> & {
  base: BaseContext;
  flags: EngineFlags;
  /** The config's deployment named by `--deployment`, when one is. */
  deployment?: ConfiguredDeployment;
  moreServices: Record<string, string>;
};

/**
 * The engine-neutral part of a run's context, from the input. The clock starts here: an engine
 * calls this once it has opened what it needs, as the timeline always started.
 */
export function runContextOf(input: UpgradeInput): UpgradeRunContext {
  const { base, flags: _flags, deployment: _deployment, ...run } = input;
  return {
    ...base,
    ...run,
    probeTimeoutMs: 5_000,
    startedAt: performance.now(),
    restores: [],
    events: [],
  };
}
