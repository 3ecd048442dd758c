import type { EngineTarget } from '../../deployment-engines/engine-target.ts';
import type { Proof } from '../../upgrade/upgrade-outcome.ts';

/** How the proof reads the worker on the engine: what each engine says of itself (its proof step). */
export interface WorkerSource {
  workerUrl?: string;
  engine?: EngineTarget;
}

/**
 * What the proof asks of `release verify`'s checks: the deployment (the API's URL, web's when
 * known, the worker as its engine says), the images, and the tag every one should run.
 */
export interface ProofRequest {
  target: { url: string; webUrl?: string; webUrls?: Record<string, string> } & WorkerSource;
  env: Record<string, string | undefined>;
  cwd: string;
  timeoutMs: number;
  images: { api: string; worker: string; web: string };
  expect?: string;
}

/**
 * The verify checks of a deployment, handed in by the program (src/cli) so that `release upgrade`
 * never imports verify: verify's `proveDeployment` in the program, a fake in a unit test.
 */
export type ProveDeployment = (request: ProofRequest) => Promise<Proof>;
