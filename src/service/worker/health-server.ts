import type { Server } from 'node:http';
import { createHardenedServer, type ServerLimits } from '../http/create-server.ts';
import { createJsonEndpoint } from '../http/json-endpoint.ts';

/** Where the worker reports its version and liveness. */
export const HEALTH_PATH = '/healthz';

/**
 * The worker's health port, not yet listening: `GET /healthz` -> `{"version": ..., "status":
 * "ok"}` (HEAD allowed, other methods 405, other paths 404 JSON). The version is what an operator,
 * a container health check or `release verify` compares with the API's.
 */
export function createHealthServer(options: { version: string; limits?: Partial<ServerLimits> }): Server {
  const healthz = createJsonEndpoint(HEALTH_PATH, { version: options.version, status: 'ok' });
  return createHardenedServer(healthz, { name: 'service-worker', limits: options.limits });
}
