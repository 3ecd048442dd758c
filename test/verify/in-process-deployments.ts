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
}): Promise<InProcessDeployment> {
  const api = createApiServer({ version: options.apiVersion, webRoot: options.webRoot });
  const worker = createHealthServer({ version: options.workerVersion });
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

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
