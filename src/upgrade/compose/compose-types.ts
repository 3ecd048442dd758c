/**
 * The parts of a Docker Compose project the upgrade reads, as plain data: the resolved model
 * (`docker compose config`) and the project's containers (Engine API, by Compose's labels). The
 * adapters (`src/deployment-engines/compose/compose-*.ts`) fill them; the modules here never talk to an engine.
 */

/** The labels Compose puts on every container it creates (v1 and v2 alike). */
export const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';
export const COMPOSE_SERVICE_LABEL = 'com.docker.compose.service';
export const COMPOSE_ONEOFF_LABEL = 'com.docker.compose.oneoff';

/** One service of the resolved model, reduced to what decides the plan. */
export interface ComposeService {
  name: string;
  /** The image as the model resolves it (`${VAR:-default}` already substituted). */
  image: string | undefined;
  /** A fixed `container_name`: two containers of the service cannot exist at once. */
  containerName?: string;
  /** `deploy.replicas` (or `scale`); 1 when unset. */
  replicas: number;
  /** `depends_on` entries with their condition (`service_started` for the short list form). */
  dependsOn: { service: string; condition: string }[];
  /** The model declares a healthcheck (the image's own is seen on the container). */
  healthcheck: boolean;
  /**
   * Its `entrypoint` and `command` as the model writes them (a list, or a string Compose splits
   * into shell words), when it sets them: what tells a role of one image (a job) by its command.
   */
  entrypoint?: string | string[];
  command?: string | string[];
}

/** One container of the project, as the engine reports it. */
export interface ComposeContainer {
  id: string;
  /** Its name without the leading slash. */
  name: string;
  service: string;
  /** The image reference it was created from (`repo:tag@sha256:...` when pinned). */
  image: string;
  /** The manifest digest it runs: pinned in `image`, else the image's repo digest. */
  digest: string | undefined;
  /** Engine state: `created`, `running`, `restarting`, `exited`, `dead`... */
  state: string;
  /** `starting`, `healthy`, `unhealthy`, or undefined without a healthcheck. */
  health?: string;
  /** The last health probe's output, when unhealthy (why it failed). */
  healthLog?: string;
  exitCode: number;
  /** How often the engine restarted it (a restart policy bringing a crashing one back). */
  restartCount: number;
  /** The version it carries: `SERVICE_VERSION` (web: `SERVICE_CLIENT_VERSION`), label, tag. */
  version: string | undefined;
  /** `docker compose run` containers: not what serves, never counted. */
  oneOff: boolean;
}

/** A compose file reference without the digest or tag (shared with every engine). */
export { repositoryOf } from '../deployment-types.ts';
