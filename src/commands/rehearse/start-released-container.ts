import type { ImageRole } from '../../config/constants.ts';
import type { DockerClient, DockerContainer } from '../../docker-client/connect.ts';
import { ExternalError } from '../../errors.ts';
import { freePort, retryOnPortClash } from '../../processes/free-port.ts';

export interface StartedContainer {
  artifact: ImageRole;
  url: string;
  stop(): Promise<void>;
}

/** Per artifact: the variable that sets its port and the path that answers once it is up. */
const SHAPE: Record<
  ImageRole,
  { portEnv: string; hostEnv: string; ready: string; url: (base: string) => string }
> = {
  api: { portEnv: 'PORT', hostEnv: 'HOST', ready: '/api/version', url: (b) => b },
  worker: {
    portEnv: 'WORKER_HEALTH_PORT',
    hostEnv: 'WORKER_HEALTH_HOST',
    ready: '/healthz',
    url: (b) => `${b}/healthz`,
  },
  web: { portEnv: 'PORT', hostEnv: 'HOST', ready: '/version.json', url: (b) => b },
};

/**
 * Pull a released image from the registry into the engine and run it on the host network (the
 * only network a rootless-style engine here has) on a free loopback port; resolves once it answers.
 */
export async function startReleasedContainer(options: ContainerOptions): Promise<StartedContainer> {
  await pull(options.docker, options.image);
  // A container that lost its port to someone else exits saying EADDRINUSE, which its logs carry
  // into the error: run it again on another.
  return retryOnPortClash(() => runOnFreePort(options));
}

interface ContainerOptions {
  docker: DockerClient;
  artifact: ImageRole;
  image: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

async function runOnFreePort(options: ContainerOptions): Promise<StartedContainer> {
  const { docker, artifact, image } = options;
  const shape = SHAPE[artifact];
  const port = await freePort();
  const container = await docker.createContainer({
    Image: image,
    Env: [
      `${shape.portEnv}=${port}`,
      `${shape.hostEnv}=127.0.0.1`,
      ...Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`),
    ],
    Labels: { 'service-release.rehearsal': 'true' },
    HostConfig: { NetworkMode: 'host' },
  });
  const stop = async () => {
    await container.remove({ force: true }).catch(() => undefined);
  };
  try {
    await container.start();
    const base = `http://127.0.0.1:${port}`;
    await waitUntilAnswers(`${base}${shape.ready}`, container, options.timeoutMs ?? 60_000);
    return { artifact, url: shape.url(base), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function pull(docker: DockerClient, image: string): Promise<void> {
  const stream = await docker.pull(image);
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null, events: { error?: string }[]) => {
      const failed = error?.message ?? events.find((e) => e.error)?.error;
      if (failed) reject(new ExternalError('PULL_FAILED', `docker pull ${image} failed: ${failed}`));
      else resolve();
    });
  });
}

async function waitUntilAnswers(url: string, container: DockerContainer, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // not up yet
    }
    const state = await container.inspect().catch(() => undefined);
    if (!state?.State.Running || Date.now() > deadline) {
      const logs = String(await container.logs({ stdout: true, stderr: true }).catch(() => ''));
      throw new ExternalError(
        'CONTAINER_FAILED',
        `the container did not answer ${url}\n${logs.slice(-2000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
