/**
 * Where a deployment runs, when it is read from its engine (`VerifyTarget.docker`, and the proof
 * `release upgrade` takes): the engine's address (`--docker-host`, else DOCKER_HOST) and, for a
 * Compose deployment, its project.
 */
export interface EngineTarget {
  host?: string;
  /** A Compose project (`--compose`, `deployments[].compose`): only its containers are the deployment. */
  composeProject?: string;
  /** The project's one-shot jobs (compose-model.ts), meant to have exited. */
  oneShots?: string[];
}
