import type { Option } from 'commander';
import type { UsageError } from '../../errors.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';
import type { ConfiguredDeployment, EngineFlags, UpgradeInput } from './upgrade-input.ts';

/**
 * One deployment engine of `release upgrade`, as the registry (engines.ts) lists it: cheap to
 * import (flags and selection only); the engine itself loads on demand, so `release --help` and
 * the other commands never load an engine's client library.
 */
export interface UpgradeEngineEntry {
  /** `swarm`, `compose`: how the report and the docs name it. */
  name: string;
  /** What it upgrades, for `release upgrade --help` ("Docker Swarm", "a Compose project"). */
  title: string;
  /** The flags it adds to `release upgrade`; the same Option in two entries is added once. */
  options: readonly Option[];
  /**
   * Whether the flags or the config's deployment ask for this engine. The default engine has
   * none: it runs when no other is asked for.
   */
  selects?: (flags: EngineFlags, deployment: ConfiguredDeployment | undefined) => boolean;
  /** This engine's own flags given while another engine runs: the refusal, or undefined. */
  strayFlags?: (flags: EngineFlags) => UsageError | undefined;
  load: () => Promise<UpgradeEngine>;
}

/** What a loaded engine does: open its context from the one input, and run its pipeline. */
export interface UpgradeEngine {
  /**
   * Open the context (connect, check the engine answers, read what the engine needs), run the
   * pipeline, and hand back what the outcome is decided from. Throws only before anything
   * changed, or for what the runner itself throws.
   */
  run: (input: UpgradeInput) => Promise<UpgradeRun>;
  /**
   * Read the CLI minimum the upgraded API reports after the run, and warn when it rose although
   * the target image did not say so (Swarm does; Compose has not so far).
   */
  raisesCliMinimumAfterRun: boolean;
}

/** A finished run: its context, what the outcome needs, and the report as the engine writes it. */
export interface UpgradeRun {
  ctx: UpgradeRunContext;
  plan: { tag: string; upToDate: boolean };
  /** The version the API reported before the upgrade: what a rollback brings back. */
  fromTag: string | undefined;
  /** Read after the outcome is decided (they print it). */
  report: { json: () => unknown; lines: () => string[] };
}
