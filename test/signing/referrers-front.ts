import { createHash } from 'node:crypto';
import { createServer, request } from 'node:http';

/**
 * A registry with the OCI 1.1 referrers API, made from the real docker-registry (which lacks it)
 * and a thin front: every request is forwarded unchanged, and each manifest PUT that carries a
 * `subject` is indexed the way an OCI 1.1 registry indexes it, so that
 * `GET /v2/<name>/referrers/<digest>` can answer. `apiCalls` counts the referrers requests.
 */
export async function startReferrersFront(target: string) {
  const index = new Map<string, Record<string, unknown>[]>();
  let apiCalls = 0;
  const server = createServer((req, res) => {
    const referrers = /^\/v2\/(.+)\/referrers\/(sha256:[0-9a-f]{64})$/.exec(req.url ?? '');
    if (req.method === 'GET' && referrers) {
      apiCalls++;
      const manifests = index.get(`${referrers[1]}@${referrers[2]}`) ?? [];
      res.writeHead(200, { 'content-type': 'application/vnd.oci.image.index.v1+json' });
      res.end(
        JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests }),
      );
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const put = /^\/v2\/(.+)\/manifests\/[^/]+$/.exec(req.url ?? '');
      const upstream = request(
        {
          host: target.split(':')[0],
          port: Number(target.split(':')[1]),
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target },
        },
        (up) => {
          if (req.method === 'PUT' && put && (up.statusCode ?? 0) < 300) remember(put[1]!, body);
          const headers = { ...up.headers };
          if (typeof headers.location === 'string')
            headers.location = headers.location.replace(`//${target}`, `//${host}`);
          res.writeHead(up.statusCode ?? 502, headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.socket?.destroy());
      upstream.end(body);
    });
  });
  function remember(repository: string, body: Buffer) {
    let manifest: {
      subject?: { digest?: string };
      mediaType?: string;
      artifactType?: string;
      annotations?: unknown;
    };
    try {
      manifest = JSON.parse(body.toString('utf8'));
    } catch {
      return;
    }
    if (!manifest.subject?.digest) return;
    const key = `${repository}@${manifest.subject.digest}`;
    const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const list = (index.get(key) ?? []).filter((d) => d['digest'] !== digest);
    list.push({
      mediaType: manifest.mediaType,
      digest,
      size: body.length,
      artifactType: manifest.artifactType,
      annotations: manifest.annotations,
    });
    index.set(key, list);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    host,
    get apiCalls() {
      return apiCalls;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
