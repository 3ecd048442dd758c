import type { ReleaseConfig } from '../../config/schema.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { ServiceRole } from '../../upgrade/deployment-types.ts';
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
export interface UpgradeInput {
  base: BaseContext;
  flags: EngineFlags;
  /** The config's deployment named by `--deployment`, when one is. */
  deployment?: ConfiguredDeployment;
  tag: string;
  serviceNames: Partial<Record<ServiceRole, string>>;
  moreServices: Record<string, string>;
  apiUrl: string;
  webUrl?: string;
  store: ImageStore;
  trustedKey?: PublicSigningKey;
  timeoutMs: number;
  rollbackTimeoutMs: number;
  monitorMs: number;
  requireCliCompatible: boolean;
}

/**
 * The engine-neutral part of a run's context, from the input. The clock starts here: an engine
 * calls this once it has opened what it needs, as the timeline always started.
 */
export function runContextOf(input: UpgradeInput): UpgradeRunContext {
  return {
    ...input.base,
    tag: input.tag,
    serviceNames: input.serviceNames,
    moreServices: input.moreServices,
    apiUrl: input.apiUrl,
    ...(input.webUrl ? { webUrl: input.webUrl } : {}),
    store: input.store,
    ...(input.trustedKey ? { trustedKey: input.trustedKey } : {}),
    timeoutMs: input.timeoutMs,
    rollbackTimeoutMs: input.rollbackTimeoutMs,
    monitorMs: input.monitorMs,
    probeTimeoutMs: 5_000,
    requireCliCompatible: input.requireCliCompatible,
    startedAt: performance.now(),
    restores: [],
    events: [],
  };
}
