import type Docker from 'dockerode';
import { freePort } from '../helpers/registry.ts';

export interface RunningContainer {
  port: number;
  /** GET a path on the container's port; the body parsed as JSON. */
  getJson<T = Record<string, unknown>>(path: string): Promise<{ status: number; headers: Headers; body: T }>;
  logs(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Run an image on the host network (the only network our private dockerd has) on a free
 * loopback port, and wait until `readyPath` answers. The port variables of each artifact are set
 * from `portEnv`, and HOST/WORKER_HEALTH_HOST pin it to 127.0.0.1.
 */
export async function runContainer(
  docker: Docker,
  image: string,
  options: { portEnv: string; hostEnv: string; readyPath: string; timeoutMs?: number },
): Promise<RunningContainer> {
  const port = await freePort();
  const container = await docker.createContainer({
    Image: image,
    Env: [`${options.portEnv}=${port}`, `${options.hostEnv}=127.0.0.1`],
    HostConfig: { NetworkMode: 'host' },
  });
  await container.start();
  const logs = async () => {
    const buffer = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    return demux(buffer);
  };
  const stop = async () => {
    await container.stop({ t: 5 }).catch(() => {});
    await container.remove({ force: true }).catch(() => {});
  };
  const getJson = async <T>(path: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
    const text = await res.text();
    let body: T;
    try {
      body = JSON.parse(text) as T;
    } catch {
      body = text as T;
    }
    return { status: res.status, headers: res.headers, body };
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await getJson(options.readyPath);
      return { port, getJson, logs, stop };
    } catch (error) {
      const state = await container.inspect().catch(() => undefined);
      if (!state?.State.Running || Date.now() > deadline) {
        const text = await logs().catch(() => '');
        await stop();
        throw new Error(
          `container from ${image} did not answer ${options.readyPath}: ${String(error)}\n${text}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** How each reference image is run and asked for its version. */
export const ARTIFACT_RUN = {
  api: { portEnv: 'PORT', hostEnv: 'HOST', readyPath: '/api/version' },
  worker: { portEnv: 'WORKER_HEALTH_PORT', hostEnv: 'WORKER_HEALTH_HOST', readyPath: '/healthz' },
  web: { portEnv: 'PORT', hostEnv: 'HOST', readyPath: '/version.json' },
} as const;

/** Docker's multiplexed log stream: frames of an 8-byte header (stream, 0, 0, 0, size BE32) and data. */
function demux(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const size = buffer.readUInt32BE(offset + 4);
    parts.push(buffer.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
