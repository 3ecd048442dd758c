import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalError } from '../../src/errors.ts';
import { copyImage } from '../../src/registry/copy-image.ts';
import { sha256Digest } from '../../src/registry/digest.ts';
import { nextLink, RegistryStore, registryBaseUrl } from '../../src/registry/registry-store.ts';
import { MANIFEST_ACCEPT } from '../../src/registry/store.ts';
import { makeImage, makeIndex, pushImage, pushIndex } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { type RegistryProxy, startProxy } from './proxy.ts';

// One anonymous registry for the suite, reached through a counting proxy so the tests can see
// (and tamper with) what goes over the wire.
let registry: RunningRegistry;
let proxy: RegistryProxy;
let store: RegistryStore;

beforeAll(async () => {
  registry = await startRegistry();
  proxy = await startProxy(registry.host);
  store = new RegistryStore({ registry: `${proxy.host}/acme`, env: {}, timeoutMs: 5000, pageSize: 3 });
});
afterAll(async () => {
  await proxy?.stop();
  await registry?.stop();
});

describe('RegistryStore against docker-registry', () => {
  it('pushes, reads by tag and digest, and HEAD-resolves a manifest', async () => {
    const image = makeImage();
    const digest = await pushImage(store, 'svc-api', image, 'v1.0.0');
    const got = await store.getManifest('svc-api', 'v1.0.0');
    expect(got?.descriptor.digest).toBe(digest);
    expect(Buffer.from(got!.bytes).equals(Buffer.from(image.manifest))).toBe(true);
    expect((await store.getManifest('svc-api', digest))?.descriptor.digest).toBe(digest);
    proxy.failNth(undefined);
    expect(await store.resolve('svc-api', 'v1.0.0')).toEqual({
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest,
      size: image.manifest.length,
    });
    expect(proxy.log).toEqual(['HEAD /v2/acme/svc-api/manifests/v1.0.0']);
    expect(await store.getManifest('svc-api', 'nope')).toBeUndefined();
    expect(await store.resolve('svc-nothing', 'v1')).toBeUndefined();
  });

  it('sends the full Accept list on every manifest read, so an index stays an index', async () => {
    const index = makeIndex([makeImage({ architecture: 'amd64' }), makeImage({ architecture: 'arm64' })]);
    await pushIndex(store, 'svc-multi', index, 'v1.0.0');
    proxy.failNth(undefined);
    const got = await store.getManifest('svc-multi', 'v1.0.0');
    await store.resolve('svc-multi', 'v1.0.0');
    expect(got?.descriptor).toMatchObject({
      mediaType: 'application/vnd.oci.image.index.v1+json',
      digest: index.digest,
    });
    expect(proxy.headers.map((h) => h['accept'])).toEqual([MANIFEST_ACCEPT, MANIFEST_ACCEPT]);
    for (const type of [
      'oci.image.manifest',
      'oci.image.index',
      'docker.distribution.manifest.v2',
      'manifest.list.v2',
    ])
      expect(MANIFEST_ACCEPT).toContain(type);
  });

  it('falls back from HEAD to GET when the registry omits Docker-Content-Digest', async () => {
    const digest = await pushImage(store, 'svc-head', makeImage(), 'v1');
    proxy.rewrite = (req, headers) => {
      if (req.method === 'HEAD') delete headers['docker-content-digest'];
    };
    proxy.failNth(undefined);
    try {
      expect((await store.resolve('svc-head', 'v1'))?.digest).toBe(digest);
    } finally {
      proxy.rewrite = undefined;
    }
    expect(proxy.log).toEqual(['HEAD /v2/acme/svc-head/manifests/v1', 'GET /v2/acme/svc-head/manifests/v1']);
  });

  it('refuses a PUT whose stored digest differs from the bytes sent', async () => {
    const image = makeImage();
    await pushImage(store, 'svc-lie', image);
    proxy.rewrite = (req, headers) => {
      if (req.method === 'PUT' && req.url.includes('/manifests/'))
        headers['docker-content-digest'] = `sha256:${'0'.repeat(64)}`;
    };
    try {
      await expect(
        store.putManifest('svc-lie', 'v1', image.manifest, image.descriptor.mediaType),
      ).rejects.toMatchObject({
        code: 'REGISTRY_DIGEST_MISMATCH',
        exitCode: 3,
      });
    } finally {
      proxy.rewrite = undefined;
    }
  });

  it('lists every tag (distribution 2.8 answers in one page)', async () => {
    const image = makeImage();
    const tags = Array.from({ length: 8 }, (_, i) => `t${i}`);
    for (const tag of tags) await pushImage(store, 'svc-tags', image, tag);
    expect((await store.listTags('svc-tags')).sort()).toEqual(tags);
    expect(await store.listTags('svc-none')).toEqual([]);
  });

  it('follows Link pagination (a registry that pages, per the distribution spec)', async () => {
    // docker-registry 2.8 ignores `n` on tag lists, so paging is played by a spec-shaped server.
    const all = Array.from({ length: 7 }, (_, i) => `p${i}`);
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const n = Number(url.searchParams.get('n'));
      const start = url.searchParams.has('last') ? all.indexOf(url.searchParams.get('last')!) + 1 : 0;
      const page = all.slice(start, start + n);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (start + n < all.length)
        headers['link'] = `</v2/acme/paged/tags/list?n=${n}&last=${page.at(-1)}>; rel="next"`;
      res.writeHead(200, headers).end(JSON.stringify({ name: 'acme/paged', tags: page }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const paged = new RegistryStore({ registry: `127.0.0.1:${port}/acme`, env: {}, pageSize: 3 });
      expect(await paged.listTags('paged')).toEqual(all);
      expect(paged.http.requests).toBe(3);
    } finally {
      server.close();
    }
    expect(nextLink('</v2/a/tags/list?last=b&n=2>; rel="next"')).toBe('/v2/a/tags/list?last=b&n=2');
    expect(nextLink(null)).toBeUndefined();
  });

  it('uploads, reads and mounts blobs across repositories', async () => {
    const bytes = Buffer.from(`blob ${Math.random()}`);
    const digest = sha256Digest(bytes);
    expect(await store.hasBlob('svc-a', digest)).toBe(false);
    await store.putBlob('svc-a', digest, bytes);
    expect(Buffer.from(await store.getBlob('svc-a', digest)).toString()).toBe(bytes.toString());
    expect(await store.mountBlob('svc-a', 'svc-b', digest)).toBe(true);
    expect(await store.hasBlob('svc-b', digest)).toBe(true);
  });

  it('copies a multi-architecture index with its digest, mounting blobs in the same store', async () => {
    const index = makeIndex([makeImage({ architecture: 'amd64' }), makeImage({ architecture: 'arm64' })]);
    await pushIndex(store, 'svc-src', index, 'v2');
    const copied = await copyImage(store, 'svc-src', 'v2', store, 'svc-dst', 'v2');
    expect(copied.descriptor.digest).toBe(index.digest);
    expect(copied.blobs.mounted).toBe(4);
    expect((await store.resolve('svc-dst', 'v2'))?.digest).toBe(index.digest);
  });

  it('turns a registry error into ExternalError with its code, and a timeout into REGISTRY_TIMEOUT', async () => {
    proxy.failNth(1, 'refuse');
    const error = await store.listTags('svc-tags').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExternalError);
    expect(error).toMatchObject({ code: 'REGISTRY_ERROR', exitCode: 3 });
    expect((error as Error).message).toMatch(
      /list tags of svc-tags on .* failed: HTTP 503 UNAVAILABLE: injected fault/,
    );
    const quick = new RegistryStore({ registry: `${proxy.host}/acme`, env: {}, timeoutMs: 300 });
    proxy.failNth(1, 'hang');
    const started = Date.now();
    await expect(quick.resolve('svc-api', 'v1.0.0')).rejects.toMatchObject({ code: 'REGISTRY_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5000);
    proxy.failNth(undefined);
  });

  it('is readable by skopeo inspect over the loopback registry', () => {
    const out = execFileSync(
      'skopeo',
      ['inspect', '--raw', '--tls-verify=false', `docker://${registry.host}/acme/svc-dst:v2`],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(JSON.parse(out).manifests).toHaveLength(2);
  });
});

describe('registryBaseUrl', () => {
  it('uses http only for loopback and the insecure list', () => {
    expect(registryBaseUrl('127.0.0.1:5000', [])).toBe('http://127.0.0.1:5000');
    expect(registryBaseUrl('localhost:5000', [])).toBe('http://localhost:5000');
    expect(registryBaseUrl('[::1]:5000', [])).toBe('http://[::1]:5000');
    expect(registryBaseUrl('registry.example.com', [])).toBe('https://registry.example.com');
    expect(registryBaseUrl('10.0.0.5:5000', [])).toBe('https://10.0.0.5:5000');
    expect(registryBaseUrl('10.0.0.5:5000', ['10.0.0.5:5000'])).toBe('http://10.0.0.5:5000');
    expect(registryBaseUrl('127.0.0.1.example.com', [])).toBe('https://127.0.0.1.example.com');
  });
});
