import { type DockerClient, type DockerClientOptions, loadDockerode } from './connect.ts';

/** Where an engine is, as a client takes it, and how a reading names it (`docker unix:///...`). */
export interface EngineAddress {
  options: DockerClientOptions;
  label: string;
}

/**
 * The engine of `--docker-host` (`unix:///path`, a socket path, or `tcp://host:port`), else
 * `DOCKER_HOST` from `env`, else the default socket. Unlike `connectDocker`, which refuses an
 * address it cannot read, this takes any URL: verify reports an engine it cannot reach as a
 * reading, never as a usage error.
 */
export function engineAddress(options: {
  host?: string;
  env: Record<string, string | undefined>;
}): EngineAddress {
  const host = options.host ?? options.env['DOCKER_HOST'] ?? 'unix:///var/run/docker.sock';
  if (host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length);
    return { options: { socketPath }, label: `docker ${host}` };
  }
  if (host.startsWith('/')) return { options: { socketPath: host }, label: `docker unix://${host}` };
  const url = new URL(host.replace(/^tcp:/, 'http:'));
  return {
    options: { host: url.hostname, port: url.port || 2375, protocol: 'http' },
    label: `docker ${host}`,
  };
}

/**
 * A client of the engine at `address` whose every request gives up after `timeoutMs`. dockerode is
 * loaded here, when a reading is asked for: it costs a third of a second of start-up, and is optional.
 */
export function dockerClientAt(address: EngineAddress, timeoutMs: number): DockerClient {
  const Docker = loadDockerode();
  return new Docker({ ...address.options, timeout: timeoutMs });
}
