import { dockerClientAt, engineAddress } from '../../docker-client/engine-address.ts';
import type { ProbeResult } from '../types.ts';
import { type HttpProbeOptions, probeApi } from './api.ts';

/**
 * `--url-per-node`: the API's version endpoint on every Swarm node's own address, with the scheme,
 * port and path of `--url`. The manager's view says what Swarm wants; only asking each node shows
 * what it serves: an API still answering the old version on a node the manager lost is drift.
 */
export async function probeApiPerNode(
  apiUrl: string,
  engine: { host?: string; env: Record<string, string | undefined>; timeoutMs: number },
  http: HttpProbeOptions,
): Promise<ProbeResult[]> {
  const where = engineAddress(engine);
  const docker = dockerClientAt(where, engine.timeoutMs);
  let nodes: { Description?: { Hostname?: string }; Status?: { Addr?: string; State?: string } }[];
  try {
    nodes = (await docker.listNodes()) as typeof nodes;
  } catch (error) {
    return [
      {
        name: 'api',
        source: `${where.label} (nodes)`,
        version: undefined,
        error: `--url-per-node needs a Swarm manager to list the nodes: ${(error as Error).message}`,
      },
    ];
  }
  return Promise.all(
    nodes
      .filter((n) => n.Status?.Addr)
      .map(async (n) => {
        const url = new URL(apiUrl);
        url.hostname = n.Status!.Addr!.includes(':') ? `[${n.Status!.Addr}]` : n.Status!.Addr!;
        const reading = await probeApi(url.toString().replace(/\/$/, ''), http);
        const name = n.Description?.Hostname ?? n.Status!.Addr!;
        return { ...reading, source: `${name} (${n.Status?.State ?? '?'}) ${reading.source}` };
      }),
  );
}
