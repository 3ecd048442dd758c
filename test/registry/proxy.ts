import { createServer, request } from 'node:http';

export type FaultMode = 'refuse' | 'drop-response' | 'hang';

export interface RegistryProxy {
  /** `127.0.0.1:<port>`: use it as the registry host. */
  host: string;
  /** `METHOD path` of every request seen, in order. */
  log: string[];
  /** Response statuses as they came back (401s are the auth round trips). */
  statuses: number[];
  /** The request headers of every request, in the same order as `log`. */
  headers: Record<string, string | string[] | undefined>[];
  /**
   * Fail the nth request (1-based) from now: `refuse` answers 503 without forwarding;
   * `drop-response` forwards it (so the registry applies it) and then cuts the connection, so the
   * client never learns it succeeded.
   */
  failNth(n: number | undefined, mode?: FaultMode): void;
  /** Fail the first request from now that matches, instead of counting. */
  failFirst(match: (method: string, url: string) => boolean, mode?: FaultMode): void;
  /** Fail every request from now that matches, until `failNth` resets it. */
  failEvery(match: (method: string, url: string) => boolean, mode?: FaultMode): void;
  /** Change response headers on their way back (to play a registry that omits or lies). */
  rewrite?:
    | ((request: { method: string; url: string }, headers: Record<string, unknown>) => void)
    | undefined;
  stop(): Promise<void>;
}

/** A counting, fault-injecting HTTP proxy in front of a registry on loopback. */
export async function startProxy(target: string): Promise<RegistryProxy> {
  const log: string[] = [];
  const headers: RegistryProxy['headers'] = [];
  const statuses: number[] = [];
  let failAt: number | undefined;
  let mode: FaultMode = 'refuse';
  let seen = 0;
  let matcher: ((method: string, url: string) => boolean) | undefined;
  let persistent = false;
  const server = createServer((req, res) => {
    seen++;
    log.push(`${req.method} ${req.url}`);
    headers.push(req.headers);
    let fail = seen === failAt;
    if (matcher?.(req.method ?? '', req.url ?? '')) {
      if (!persistent) matcher = undefined;
      fail = true;
    }
    if (fail && mode === 'hang') {
      req.resume();
      return; // never answer: the client's deadline must end it
    }
    if (fail && mode === 'refuse') {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"errors":[{"code":"UNAVAILABLE","message":"injected fault"}]}');
      return;
    }
    const upstream = request(
      {
        host: target.split(':')[0],
        port: Number(target.split(':')[1]),
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target },
      },
      (up) => {
        if (fail) {
          up.resume();
          up.on('end', () => res.socket?.destroy());
          return;
        }
        // Rewrite absolute Locations so upload URLs keep going through the proxy.
        statuses.push(up.statusCode ?? 0);
        const back = { ...up.headers };
        if (typeof back.location === 'string')
          back.location = back.location.replace(`//${target}`, `//${proxyHost}`);
        proxy.rewrite?.({ method: req.method ?? '', url: req.url ?? '' }, back);
        res.writeHead(up.statusCode ?? 502, back);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyHost = `127.0.0.1:${(server.address() as { port: number }).port}`;
  const proxy: RegistryProxy = {
    host: proxyHost,
    log,
    statuses,
    headers,
    failFirst(match, m = 'refuse') {
      proxy.failNth(undefined, m);
      matcher = match;
    },
    failEvery(match, m = 'refuse') {
      proxy.failNth(undefined, m);
      matcher = match;
      persistent = true;
    },
    failNth(n, m = 'refuse') {
      seen = 0;
      matcher = undefined;
      persistent = false;
      log.length = 0;
      headers.length = 0;
      statuses.length = 0;
      failAt = n;
      mode = m;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
