/**
 * Where a deployment runs on its engine, when it is read from there (`VerifyTarget.engine`, and
 * the proof `release upgrade` takes). `name` says which engine reads it; without one, the first
 * engine that says it runs the target does (a Docker engine target: the engine's address and, for
 * a Compose deployment, its project). Another engine keeps its own fields beside (`namespace`).
 */
export interface EngineTarget {
  /** The engine's name in its entry (`compose`, `docker`): who reads the target. */
  name?: string;
  /** A Docker engine's address (`--docker-host`, else DOCKER_HOST). */
  host?: string;
  /** A Compose project (`--compose`, `deployments[].compose`): only its containers are the deployment. */
  composeProject?: string;
  /** The project's one-shot jobs (compose-model.ts), meant to have exited. */
  oneShots?: string[];
  /** What another engine needs to find the deployment (a namespace, a context). */
  [field: string]: unknown;
}
