import type { RoleCommand } from '../../config/role-of-command.ts';
import type { EngineTarget } from '../../deployment-engines/engine-target.ts';
import type { HttpProbeOptions } from '../probes/api.ts';
import type { ArtifactName, ProbeResult } from '../types.ts';

/** What to read of one image on a deployment's engine. */
export interface ImageReadingRequest {
  /** The image's repository (`artifacts.<name>.image`). */
  image: string;
  /** Which artifact the image is (default worker): `--registry` also reads API and web digests. */
  name?: ArtifactName;
  /** The roles run from the image: with more than one, a reading per role. */
  roles?: readonly RoleCommand[];
  /** The variables the version may be in, the service's own first. */
  envNames?: readonly string[];
  /**
   * Every container and service of the image on the engine, not only the deployment's Compose
   * project's: `--registry`'s extra images are read so.
   */
  wholeEngine?: boolean;
  env: Record<string, string | undefined>;
  timeoutMs: number;
}

/**
 * One engine verify reads deployments from. Its deployment engine entry
 * (src/deployment-targets/) loads it for `release verify` and `release watch`; a library caller
 * passes it in `ProbeOptions.engines`. How to tell a target it runs, how to read an image's
 * workloads there, and (an engine with nodes) the API on each node's address.
 */
export interface WorkerEngine {
  name: string;
  /** Whether this engine runs the deployment; the first entry that does reads it. */
  runs(target: EngineTarget): boolean;
  /** Every reading of the image the deployment runs: one with `error` when none, or unreachable. */
  readImage(target: EngineTarget, request: ImageReadingRequest): Promise<ProbeResult[]>;
  /** `--url-per-node`: the API's version endpoint on each node's own address. */
  readApiPerNode(
    target: EngineTarget,
    apiUrl: string,
    request: Pick<ImageReadingRequest, 'env' | 'timeoutMs'>,
    http: HttpProbeOptions,
  ): Promise<ProbeResult[]>;
}
