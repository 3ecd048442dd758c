import type { BuildTiming } from '../../build/build-timing.ts';
import type { LocalNpmRegistry } from '../../cli-package/local-npm-registry.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { StepReport } from '../../pipeline/step.ts';
import type { LocalRegistry } from '../../registry/local-registry.ts';
import type { StartedContainer } from './start-released-container.ts';
import type { StartedService } from './start-released-image.ts';

/** The versions the rehearsal releases: an rc, then the full release of the rc's exact digests. */
export const REHEARSAL = {
  rcTag: 'v1.0.0-rc.1',
  releaseTag: 'v1.0.0',
  /** Below the API's MIN_CLI_VERSION (1.0.0): the gate must block it. */
  oldCliVersion: 'v0.9.0',
  /** Only used inside the throw-away workspace, to sign the rc. */
  passphrase: 'rehearsal-only-passphrase',
} as const;

export type RehearsalEngine = 'oci' | 'docker';

/** A step run in a lane beside others (rehearse-lanes.ts): its report says which (1, 2, ...). */
export type LaneStepReport = StepReport & { lane: number };

export interface RehearseContext extends BaseContext {
  /** oci: the embedded layout and processes; docker: images, a local registry and containers. */
  engine: RehearsalEngine;
  /** Keep the workspace (and print where) instead of removing it. */
  keep: boolean;
  /** Everything the rehearsal makes lives under here and is removed at the end. */
  workspace?: string;
  /** The temporary git repository made from the reference service. */
  repo?: string;
  /** Environment for every `release` run inside the workspace. */
  releaseEnv?: Record<string, string | undefined>;
  stamped?: { version: string; tag: string; channel: string };
  /** Digest per image artifact after the rc promotion, compared with the release's. */
  rcDigests?: Record<string, string>;
  /** What runs the deployment, stopped at the end whatever happened. */
  services: StartedService[];
  containers: StartedContainer[];
  registry?: LocalRegistry;
  /** `--publish`: promotions publish the CLI package to this local Verdaccio. */
  publish?: boolean;
  npmRegistry?: LocalNpmRegistry;
  urls?: { api: string; web: string; workerHealth: string };
  /**
   * The old CLI (below the minimum) installed in its own prefix: started once the build has made
   * the rc's archive, beside the promotions, and awaited by the gate step.
   */
  oldCli?: Promise<void>;
  /** What each step found, one line per step title, for the report. */
  notes: Record<string, string>;
  /** Where a step's time went (the build's `timing` from `release build --json`), by step title. */
  breakdowns: Record<string, BuildTiming>;
  /** The steps run as lanes side by side (rehearse-lanes.ts), per lane, by the lanes' step title. */
  laneReports: Record<string, LaneStepReport[][]>;
}
