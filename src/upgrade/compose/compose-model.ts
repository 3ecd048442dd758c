import { UsageError } from '../../errors.ts';
import type { ComposeService } from './compose-types.ts';

/**
 * The services of a resolved Compose model (the YAML `docker compose config` prints, parsed).
 * Only what the plan needs is read; the rest of the model stays Compose's business.
 */
export function composeServices(model: unknown): ComposeService[] {
  const services = (model as { services?: Record<string, unknown> } | null)?.services;
  if (!services || typeof services !== 'object') {
    throw new UsageError('COMPOSE_NO_SERVICES', 'the compose files define no services', {
      hint: 'check the files given with --compose (docker compose config shows what Compose reads)',
    });
  }
  return Object.entries(services).map(([name, raw]) => serviceOf(name, (raw ?? {}) as RawService));
}

interface RawService {
  image?: string;
  container_name?: string;
  scale?: number;
  deploy?: { replicas?: number };
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: unknown; disable?: boolean };
  entrypoint?: string | string[];
  command?: string | string[];
}

function serviceOf(name: string, raw: RawService): ComposeService {
  const dependsOn = Array.isArray(raw.depends_on)
    ? raw.depends_on.map((service) => ({ service, condition: 'service_started' }))
    : Object.entries(raw.depends_on ?? {}).map(([service, d]) => ({
        service,
        condition: d?.condition ?? 'service_started',
      }));
  const replicas = raw.deploy?.replicas ?? raw.scale ?? 1;
  return {
    name,
    image: raw.image,
    ...(raw.container_name ? { containerName: raw.container_name } : {}),
    replicas: Number(replicas),
    dependsOn,
    healthcheck: Boolean(raw.healthcheck && !raw.healthcheck.disable && raw.healthcheck.test),
    ...(raw.entrypoint !== undefined ? { entrypoint: raw.entrypoint } : {}),
    ...(raw.command !== undefined ? { command: raw.command } : {}),
  };
}

/**
 * The one-shot jobs of a project: services another waits for to complete
 * (`service_completed_successfully`), such as a migration. Exiting 0 is what they are for.
 */
export function oneShotServices(services: ComposeService[]): string[] {
  const waitedFor = services.flatMap((s) =>
    s.dependsOn.filter((d) => d.condition === 'service_completed_successfully').map((d) => d.service),
  );
  return [...new Set(waitedFor)].sort();
}
