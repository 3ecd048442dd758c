import type { Server } from 'node:http';
import { createHardenedServer } from '../../http/create-server.ts';
import { sendError, sendNotFound } from '../../http/json-response.ts';
import { createStaticHandler } from '../../http/static-files.ts';
import { createApiProxy } from './api-proxy.ts';

export interface WebServerOptions {
  /** The built web client (`npm run build:web` output), already checked to exist. */
  root: string;
  /** The API to forward `/api/*` to; without it `/api/*` is 404 JSON. */
  apiUrl?: URL;
  /** Deadline for the API's answer through the proxy. */
  proxyTimeoutMs?: number;
  log?: (line: string) => void;
}

/**
 * The web image's server (not listening yet): the built client's files from `root` (path
 * traversal, dotfiles and symlinks out of the root refused; index.html and version.json
 * `no-store`, hashed assets cached for good), and `/api/*` forwarded to `apiUrl`, so the page
 * and the API share one origin and the client's `/api/version` check works.
 */
export function createWebServer(options: WebServerOptions): Server {
  const serveFile = createStaticHandler(options.root);
  const proxy = options.apiUrl
    ? createApiProxy(options.apiUrl, { timeoutMs: options.proxyTimeoutMs, log: options.log })
    : undefined;
  return createHardenedServer(
    async (req, res) => {
      const target = apiTarget(req.url ?? '/');
      if (target === undefined) return sendError(res, 400, 'malformed request target');
      if (target === null) return serveFile(req, res);
      if (proxy) return proxy(req, res, target);
      return sendNotFound(res);
    },
    { name: 'service-web' },
  );
}

/**
 * The path and query to forward when a request is for the API, with dot segments resolved the
 * way a browser would (`/assets/../api/x` is `/api/x`, `/api/../secret` is not the API), so the
 * proxy can only ever reach paths under `/api/`. null: not an API request; undefined: unreadable.
 */
function apiTarget(url: string): string | null | undefined {
  if (!url.startsWith('/')) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://web.invalid');
  } catch {
    return undefined;
  }
  if (parsed.pathname !== '/api' && !parsed.pathname.startsWith('/api/')) return null;
  return parsed.pathname + parsed.search;
}
