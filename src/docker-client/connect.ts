import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { ExternalError, UsageError } from '../errors.ts';

const DEFAULT_SOCKET = '/var/run/docker.sock';

/**
 * A client of one Docker engine. Code outside the Docker adapters names it by this alias, never by
 * dockerode's own type, so dockerode stays a detail of `src/docker-client/` and the engine adapters.
 */
export type DockerClient = Docker;
/** How a client reaches its engine (a socket path, or host, port and protocol). */
export type DockerClientOptions = Docker.DockerOptions;
/** One container of an engine, as the client hands it out. */
export type DockerContainer = Docker.Container;

/** The code of the error for a missing dockerode (the engine choice falls back to oci on it). */
export const DOCKERODE_MISSING = 'DOCKERODE_MISSING';

/**
 * dockerode, loaded when a command talks to Docker. It is an optional peer dependency: with its
 * gRPC, protobuf and ssh stack it is a third of the install, and a team that builds without Docker
 * (`--engine oci`) never needs it. Synchronous (a CommonJS package) so callers stay as they were.
 */
export function loadDockerode(): typeof Docker {
  try {
    return createRequire(import.meta.url)('dockerode') as typeof Docker;
  } catch (error) {
    if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new ExternalError(
      DOCKERODE_MISSING,
      'talking to a Docker engine needs dockerode, which is not installed',
      {
        hint: 'npm install --save-dev dockerode@4 to use Docker (--engine docker, release upgrade, verify --docker); or build without Docker: --engine oci',
        cause: error,
      },
    );
  }
}

/** Where the engine is, from `DOCKER_HOST` (as the docker CLI reads it), else the default socket. */
export function dockerEndpoint(env: Record<string, string | undefined>): string {
  return env['DOCKER_HOST']?.trim() || `unix://${DEFAULT_SOCKET}`;
}

/**
 * A dockerode client for `DOCKER_HOST` read from `env` (not `process.env`, so tests and embedders
 * choose): `unix://<socket>`, or `tcp://host:port` with TLS when `DOCKER_TLS_VERIFY=1` (certs
 * from `DOCKER_CERT_PATH`, else `~/.docker`).
 */
export function connectDocker(env: Record<string, string | undefined>): Docker {
  const endpoint = dockerEndpoint(env);
  const Docker = loadDockerode();
  if (endpoint.startsWith('unix://')) return new Docker({ socketPath: endpoint.slice('unix://'.length) });
  const tcp = /^tcp:\/\/([^:/]+|\[[^\]]+\]):(\d+)\/?$/.exec(endpoint);
  if (!tcp) {
    throw new UsageError(
      'DOCKER_HOST_INVALID',
      `DOCKER_HOST "${endpoint}" is not unix://<socket> or tcp://<host>:<port>`,
      {
        hint: 'set DOCKER_HOST to the engine address, or unset it to use /var/run/docker.sock',
      },
    );
  }
  const host = tcp[1]!.replace(/^\[|\]$/g, '');
  const port = Number(tcp[2]);
  if (env['DOCKER_TLS_VERIFY'] !== '1') return new Docker({ host, port, protocol: 'http' });
  const certs = env['DOCKER_CERT_PATH'] || join(env['HOME'] ?? '', '.docker');
  const read = (name: string) => readFileSync(join(certs, name));
  return new Docker({
    host,
    port,
    protocol: 'https',
    ca: read('ca.pem'),
    cert: read('cert.pem'),
    key: read('key.pem'),
  });
}

/** Whether the engine answers a ping within `timeoutMs`. */
export async function dockerAnswers(docker: Docker, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      docker.ping().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function dockerUnreachable(env: Record<string, string | undefined>, cause?: unknown): ExternalError {
  return new ExternalError('DOCKER_UNREACHABLE', `no Docker engine answers at ${dockerEndpoint(env)}`, {
    hint: 'start dockerd or set DOCKER_HOST to a running engine; or build without Docker: --engine oci',
    cause,
  });
}

/**
 * Read a docker JSON-lines progress stream to its end. Throws with the engine's own message when a
 * line carries an error (a failed build step, a refused push). Each line goes to `onLine`.
 */
export async function followProgress(
  stream: NodeJS.ReadableStream,
  onLine: (line: ProgressLine) => void = () => {},
): Promise<ProgressLine[]> {
  const lines: ProgressLine[] = [];
  let buffer = '';
  const take = (text: string) => {
    const trimmed = text.trim();
    if (!trimmed) return;
    let line: ProgressLine;
    try {
      line = JSON.parse(trimmed) as ProgressLine;
    } catch {
      line = { stream: trimmed };
    }
    lines.push(line);
    onLine(line);
  };
  for await (const chunk of stream) {
    buffer += chunk.toString();
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      take(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
    }
  }
  take(buffer);
  return lines;
}

export interface ProgressLine {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string; Digest?: string; Tag?: string; Size?: number };
}

/** The first error a progress stream reported, if any. */
export function progressError(lines: ProgressLine[]): string | undefined {
  const failed = lines.find((line) => line.error || line.errorDetail?.message);
  return failed ? (failed.errorDetail?.message ?? failed.error) : undefined;
}
