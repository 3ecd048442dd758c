/**
 * The environment variables a version is given in. `SERVICE_VERSION` and `SERVICE_CLIENT_VERSION`
 * always (the spec's names); beside them, the names the service itself reads
 * (`versionVariables.server`, `.client`: `ACME_VERSION`, `VITE_ACME_VERSION`), set everywhere the
 * standard ones are: image env, Docker build args, build commands, stamp outputs, the re-stamp of
 * a release. No zod here: `release stamp` reads these without loading the validator.
 */
export const SERVER_VERSION_VARIABLE = 'SERVICE_VERSION';
export const CLIENT_VERSION_VARIABLE = 'SERVICE_CLIENT_VERSION';

export interface VersionVariables {
  server: string[];
  client: string[];
}

/** Only the part of a config these read (a config validated before the key existed has none). */
type WithVersionVariables = { versionVariables?: Partial<VersionVariables> | undefined };

/** Every name the server version goes into: the standard one first. */
export function serverVersionVariables(config: WithVersionVariables): string[] {
  return [SERVER_VERSION_VARIABLE, ...(config.versionVariables?.server ?? [])];
}

/** Every name the web client's version goes into: the standard one first. */
export function clientVersionVariables(config: WithVersionVariables): string[] {
  return [CLIENT_VERSION_VARIABLE, ...(config.versionVariables?.client ?? [])];
}

/** `{ NAME: value }` for every server name and every client name: one object to spread into an env. */
export function versionEnv(
  config: WithVersionVariables,
  server: string,
  client: string = server,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of serverVersionVariables(config)) env[name] = server;
  for (const name of clientVersionVariables(config)) env[name] = client;
  return env;
}

/**
 * The names to read a running container's version from, in order: the service's own first (what
 * it actually reads), then the standard one. Readers take the first one set.
 */
export function versionReadOrder(config: WithVersionVariables): { server: string[]; client: string[] } {
  return {
    server: [...(config.versionVariables?.server ?? []), SERVER_VERSION_VARIABLE],
    client: [...(config.versionVariables?.client ?? []), CLIENT_VERSION_VARIABLE],
  };
}
