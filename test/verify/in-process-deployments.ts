import type { Server } from 'node:http';
import { createApiServer } from '../../src/service/api/server.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { createHealthServer } from '../../src/service/worker/health-server.ts';

/** One deployment made of the real reference servers, listening on loopback in this process. */
export interface InProcessDeployment {
  name: string;
  url: string;
  webUrl: string;
  workerUrl: string;
  close(): Promise<void>;
}

/**
 * The reference API (serving the built web client on its own origin, as SERVICE_WEB_ROOT does)
 * and the reference worker's health server, each on an ephemeral loopback port. Many fit in one
 * process, which is what a fleet test or benchmark needs; the processes themselves are tested in
 * live-deployment.test.ts.
 */
export async function startInProcessDeployment(options: {
  name: string;
  apiVersion: string;
  workerVersion: string;
  webRoot: string;
  /** Delay every answer by this much, to stand in for the network between operator and site. */
  latencyMs?: number;
}): Promise<InProcessDeployment> {
  const api = delayed(
    createApiServer({ version: options.apiVersion, webRoot: options.webRoot }),
    options.latencyMs,
  );
  const worker = delayed(createHealthServer({ version: options.workerVersion }), options.latencyMs);
  const [url, workerBase] = await Promise.all([
    listen(api, { host: '127.0.0.1', port: 0 }),
    listen(worker, { host: '127.0.0.1', port: 0 }),
  ]);
  return {
    name: options.name,
    url,
    webUrl: url,
    workerUrl: `${workerBase}/healthz`,
    close: async () => {
      await Promise.all([close(api), close(worker)]);
    },
  };
}

function delayed(server: Server, latencyMs = 0): Server {
  if (latencyMs <= 0) return server;
  const handlers = server.listeners('request') as ((...args: unknown[]) => void)[];
  server.removeAllListeners('request');
  server.on('request', (...args: unknown[]) => {
    setTimeout(() => {
      for (const handler of handlers) handler.apply(server, args);
    }, latencyMs);
  });
  return server;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
