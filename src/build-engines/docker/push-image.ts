import type Docker from 'dockerode';
import { followProgress, progressError } from '../../docker-client/connect.ts';
import { ExternalError } from '../../errors.ts';
import { findCredentials } from '../../registry/credentials.ts';
import { formatImageRef } from '../../registry/image-ref.ts';

/**
 * Push `<registry>/<repository>:<tag>` from the engine, with the credentials the docker config
 * has for the registry host (the same lookup promote uses). Returns the manifest digest the
 * registry reported.
 */
export async function pushImage(
  docker: Docker,
  target: { registry: string; repository: string; tag: string; env: Record<string, string | undefined> },
): Promise<string> {
  const host = target.registry.split('/')[0]!;
  const name = formatImageRef(target.registry, target.repository, target.tag);
  const credentials = await findCredentials(host, target.env);
  const authconfig = !credentials
    ? undefined
    : credentials.kind === 'basic'
      ? { username: credentials.username, password: credentials.password, serveraddress: host }
      : { identitytoken: credentials.token, serveraddress: host };
  let failed: string | undefined;
  let digest: string | undefined;
  try {
    const stream = await docker.getImage(name.slice(0, name.lastIndexOf(':'))).push({
      tag: target.tag,
      ...(authconfig ? { authconfig } : {}),
    });
    const lines = await followProgress(stream);
    failed = progressError(lines);
    digest = lines.find((line) => line.aux?.Digest)?.aux?.Digest;
  } catch (error) {
    failed = (error as Error).message;
  }
  if (failed || !digest) {
    throw new ExternalError(
      'DOCKER_PUSH_FAILED',
      `pushing ${name} failed: ${failed ?? 'the engine reported no digest'}`,
      {
        hint: credentials
          ? `check the registry is reachable and that the login for ${host} (${credentials.source}) may push`
          : `log in first (docker login ${host}), or check the registry is reachable`,
      },
    );
  }
  return digest;
}
