import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ExternalError, TAG_DELETE_UNSUPPORTED } from '../errors.ts';
import { findCredentials } from './credentials.ts';
import { isDigest, manifestDigest, sha256Digest } from './digest.ts';
import { MAX_MANIFEST_BYTES, parseIndexJson, parseJson, parseManifestBytes } from './oci-schema.ts';
import { fallbackReferrers } from './referrers.ts';
import { RegistryAuth } from './registry-auth.ts';

export { registryBaseUrl } from './registry-base-url.ts';

import { registryBaseUrl } from './registry-base-url.ts';
import { RegistryHttp } from './registry-http.ts';
import { type Descriptor, type ImageStore, MANIFEST_ACCEPT, type Manifest, MEDIA_TYPES } from './store.ts';

export interface RegistryStoreOptions {
  /** `host[:port][/namespace]` */
  registry: string;
  env: Record<string, string | undefined>;
  /** Hosts (`host[:port]`) that may be reached over plain http although not loopback. */
  insecure?: string[];
  /** Deadline of each request; blob transfers get more time in proportion to their size. */
  timeoutMs?: number;
  /** Tags asked for per page when listing (registries may send fewer). */
  pageSize?: number;
}

/** Bytes per PATCH of a streamed upload. */
const UPLOAD_CHUNK = 8 * 1024 * 1024;

/** An OCI distribution registry (the HTTP API docker, skopeo and every registry speak). */
export class RegistryStore implements ImageStore {
  readonly name: string;
  readonly pullPrefix: string;
  readonly http: RegistryHttp;
  readonly auth: RegistryAuth;
  private readonly namespace: string;
  private readonly pageSize: number;

  constructor(options: RegistryStoreOptions) {
    const slash = options.registry.indexOf('/');
    const host = slash < 0 ? options.registry : options.registry.slice(0, slash);
    this.namespace = slash < 0 ? '' : options.registry.slice(slash + 1);
    this.name = options.registry;
    this.pullPrefix = options.registry;
    this.pageSize = options.pageSize ?? 1000;
    const timeoutMs = options.timeoutMs ?? 30_000;
    let credentials: ReturnType<typeof findCredentials> | undefined;
    this.auth = new RegistryAuth(
      host,
      () => (credentials ??= findCredentials(host, options.env)),
      timeoutMs,
      options.insecure ?? [],
    );
    this.http = new RegistryHttp(host, registryBaseUrl(host, options.insecure ?? []), this.auth, timeoutMs);
  }

  async getManifest(repository: string, reference: string): Promise<Manifest | undefined> {
    const res = await this.http.send({
      method: 'GET',
      url: this.manifestUrl(repository, reference),
      headers: { accept: MANIFEST_ACCEPT },
      scopes: [this.scope(repository, 'pull')],
      what: `GET manifest ${refText(repository, reference)}`,
      accept: [404],
    });
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    const what = `GET manifest ${refText(repository, reference)}`;
    const bytes = await this.http.readBody(res, { what }, MAX_MANIFEST_BYTES);
    const digest = sha256Digest(bytes);
    const claimed = res.headers.get('docker-content-digest');
    if (
      (isDigest(reference) && reference !== digest) ||
      (claimed?.startsWith('sha256:') && claimed !== digest)
    ) {
      throw new ExternalError(
        'REGISTRY_DIGEST_MISMATCH',
        `the manifest of ${refText(repository, reference)} on ${this.name} does not match its digest`,
        {
          hint: 'the registry or something between us and it altered the manifest; do not promote from it',
        },
      );
    }
    const mediaType = mediaTypeOf(res, bytes);
    const parsed = parseManifestBytes(bytes, mediaType);
    if (parsed.kind === 'invalid')
      throw new ExternalError(
        'MANIFEST_INVALID',
        `${this.name}: ${refText(repository, reference)} is not an OCI or Docker manifest (${parsed.reason})`,
        {
          hint: 'the registry serves something that is not an image manifest at this address; check what was pushed',
        },
      );
    return { descriptor: { mediaType, digest, size: bytes.length }, bytes };
  }

  async resolve(repository: string, reference: string): Promise<Descriptor | undefined> {
    const res = await this.http.send({
      method: 'HEAD',
      url: this.manifestUrl(repository, reference),
      headers: { accept: MANIFEST_ACCEPT },
      scopes: [this.scope(repository, 'pull')],
      what: `HEAD manifest ${refText(repository, reference)}`,
      accept: [404],
    });
    if (res.status === 404) return undefined;
    const digest = res.headers.get('docker-content-digest');
    const size = Number(res.headers.get('content-length'));
    const mediaType = res.headers.get('content-type')?.split(';')[0]?.trim();
    // Not every registry sends the digest on HEAD: then the manifest itself has to be read.
    if (!digest || !isDigest(digest) || !mediaType || !Number.isFinite(size)) {
      return (await this.getManifest(repository, reference))?.descriptor;
    }
    return { mediaType, digest, size };
  }

  async putManifest(
    repository: string,
    reference: string,
    bytes: Uint8Array,
    mediaType: string,
  ): Promise<Descriptor> {
    const digest = manifestDigest(bytes, reference);
    const res = await this.http.send({
      method: 'PUT',
      url: this.manifestUrl(repository, reference),
      headers: { 'content-type': mediaType },
      body: bytes,
      scopes: [this.scope(repository, 'pull,push')],
      what: `PUT manifest ${refText(repository, reference)}`,
    });
    await res.body?.cancel();
    const stored = res.headers.get('docker-content-digest');
    if (stored && stored !== digest) {
      throw new ExternalError(
        'REGISTRY_DIGEST_MISMATCH',
        `${this.name} stored ${refText(repository, reference)} as ${stored}, not ${digest}`,
        {
          hint: 'the registry converted the manifest; use a registry that stores manifests as sent',
        },
      );
    }
    return { mediaType, digest, size: bytes.length };
  }

  /**
   * Remove a tag. The distribution spec allows registries to refuse this (distribution 2.x does):
   * then TAG_DELETE_UNSUPPORTED, so an undo can say what it could not do.
   */
  async deleteTag(repository: string, tag: string): Promise<void> {
    const res = await this.http.send({
      method: 'DELETE',
      url: this.manifestUrl(repository, tag),
      scopes: [this.scope(repository, 'delete')],
      what: `DELETE tag ${repository}:${tag}`,
      accept: [400, 404, 405],
    });
    await res.body?.cancel();
    if (res.status === 404) return;
    if (res.status === 400 || res.status === 405) {
      throw new ExternalError(
        TAG_DELETE_UNSUPPORTED,
        `${this.name} cannot delete a single tag (${repository}:${tag})`,
        {
          hint: 'delete the tag with the registry’s own tools, or re-run the promotion to complete it',
        },
      );
    }
  }

  async hasBlob(repository: string, digest: string): Promise<boolean> {
    const res = await this.http.send({
      method: 'HEAD',
      url: `/v2/${this.path(repository)}/blobs/${digest}`,
      scopes: [this.scope(repository, 'pull')],
      what: `HEAD blob ${repository}@${digest}`,
      accept: [404],
    });
    return res.status !== 404;
  }

  async getBlob(repository: string, digest: string, maxBytes?: number): Promise<Uint8Array> {
    const what = `GET blob ${repository}@${digest}`;
    // A small document (a config, a bundle) gets the deadline of any request; a layer, more time.
    const timeoutMs = maxBytes !== undefined && maxBytes <= 64 * 1024 * 1024 ? undefined : 300_000;
    const res = await this.http.send({
      method: 'GET',
      url: `/v2/${this.path(repository)}/blobs/${digest}`,
      scopes: [this.scope(repository, 'pull')],
      what,
      ...(timeoutMs ? { timeoutMs } : {}),
    });
    // Read through the bounded reader either way: a stalled body is then a named timeout (exit 3).
    const bytes = await this.http.readBody(
      res,
      { what, ...(timeoutMs ? { timeoutMs } : {}) },
      maxBytes ?? Number.MAX_SAFE_INTEGER,
    );
    if (sha256Digest(bytes) !== digest)
      throw new ExternalError(
        'REGISTRY_DIGEST_MISMATCH',
        `blob ${repository}@${digest} on ${this.name} does not match its digest`,
        {
          hint: 'the registry or something between us and it altered the blob',
        },
      );
    return bytes;
  }

  /** Monolithic upload: POST for an upload URL, then one PUT of the bytes with their digest. */
  async putBlob(repository: string, digest: string, bytes: Uint8Array): Promise<void> {
    const start = await this.http.send({
      method: 'POST',
      url: `/v2/${this.path(repository)}/blobs/uploads/`,
      scopes: [this.scope(repository, 'pull,push')],
      what: `start upload ${repository}@${digest}`,
    });
    await start.body?.cancel();
    const location = this.uploadLocation(start, repository);
    location.searchParams.set('digest', digest);
    const done = await this.http.send({
      method: 'PUT',
      url: location.href,
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
      scopes: [this.scope(repository, 'pull,push')],
      what: `upload blob ${repository}@${digest}`,
      timeoutMs: 30_000 + Math.ceil(bytes.length / 1_000_000) * 2_000,
    });
    await done.body?.cancel();
  }

  /** Stream a blob's body into `path` (unchecked: the caller hashes the file it reads back). */
  async readBlobTo(repository: string, digest: string, path: string): Promise<void> {
    const res = await this.http.send({
      method: 'GET',
      url: `/v2/${this.path(repository)}/blobs/${digest}`,
      scopes: [this.scope(repository, 'pull')],
      what: `GET blob ${repository}@${digest}`,
      timeoutMs: 3_600_000,
    });
    if (!res.body)
      throw new ExternalError('REGISTRY_ERROR', `${this.name} sent no body for ${repository}@${digest}`);
    await pipeline(
      Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
      createWriteStream(path),
    );
  }

  /**
   * Chunked upload from a file: POST, a PATCH per 8 MiB chunk (each a plain buffer, so a request
   * the registry asks to authenticate again can be sent again), then PUT with the digest, which
   * the registry checks. Memory stays one chunk whatever the blob's size.
   */
  async writeBlobFrom(repository: string, digest: string, path: string): Promise<void> {
    const scopes = [this.scope(repository, 'pull,push')];
    const start = await this.http.send({
      method: 'POST',
      url: `/v2/${this.path(repository)}/blobs/uploads/`,
      scopes,
      what: `start upload ${repository}@${digest}`,
    });
    await start.body?.cancel();
    let location = this.uploadLocation(start, repository);
    const file = await open(path, 'r');
    try {
      const chunk = Buffer.alloc(UPLOAD_CHUNK);
      let offset = 0;
      for (;;) {
        const { bytesRead } = await file.read(chunk, 0, UPLOAD_CHUNK, offset);
        if (bytesRead === 0) break;
        const res = await this.http.send({
          method: 'PATCH',
          url: location.href,
          headers: {
            'content-type': 'application/octet-stream',
            'content-range': `${offset}-${offset + bytesRead - 1}`,
          },
          body: chunk.subarray(0, bytesRead),
          scopes,
          what: `upload blob ${repository}@${digest} at ${offset}`,
          timeoutMs: 120_000,
        });
        await res.body?.cancel();
        location = this.uploadLocation(res, repository);
        offset += bytesRead;
      }
    } finally {
      await file.close();
    }
    location.searchParams.set('digest', digest);
    const done = await this.http.send({
      method: 'PUT',
      url: location.href,
      scopes,
      what: `finish upload ${repository}@${digest}`,
      timeoutMs: 120_000,
    });
    await done.body?.cancel();
  }

  /** Cross-repository mount: 201 when the registry linked the blob, false when it did not. */
  async mountBlob(fromRepository: string, toRepository: string, digest: string): Promise<boolean> {
    const from = encodeURIComponent(this.path(fromRepository));
    const res = await this.http.send({
      method: 'POST',
      url: `/v2/${this.path(toRepository)}/blobs/uploads/?mount=${digest}&from=${from}`,
      scopes: [this.scope(toRepository, 'pull,push'), this.scope(fromRepository, 'pull')],
      what: `mount blob ${fromRepository}@${digest} into ${toRepository}`,
    });
    await res.body?.cancel();
    return res.status === 201;
  }

  /**
   * OCI 1.1 referrers: the registry's referrers API when it answers with an index;
   * otherwise (distribution 2.x answers 404) the `sha256-<hex>` tag schema.
   */
  async referrers(repository: string, digest: string): Promise<Descriptor[]> {
    const found: Descriptor[] = [];
    let url: string | undefined = `/v2/${this.path(repository)}/referrers/${digest}`;
    for (let page = 0; url && page < 100; page++) {
      const res: Response = await this.http.send({
        method: 'GET',
        url,
        headers: { accept: MEDIA_TYPES.ociIndex },
        scopes: [this.scope(repository, 'pull')],
        what: `GET referrers of ${repository}@${digest}`,
        accept: [400, 404, 405, 501],
      });
      const type = res.headers.get('content-type')?.split(';')[0]?.trim();
      if (res.status !== 200 || type !== MEDIA_TYPES.ociIndex) {
        await res.body?.cancel();
        if (page === 0) return fallbackReferrers(this, repository, digest);
        break;
      }
      const what = `GET referrers of ${repository}@${digest}`;
      const index = parseIndexJson(parseJson(await this.http.readBody(res, { what }, MAX_MANIFEST_BYTES)));
      if (typeof index === 'string')
        throw new ExternalError(
          'REFERRERS_INVALID',
          `${this.name}: the referrers of ${repository}@${digest} are not an OCI index (${index})`,
          {
            hint: 'the registry answers its referrers API with something else; ask its operator',
          },
        );
      found.push(...index.manifests);
      url = nextLink(res.headers.get('link'));
    }
    return found;
  }

  /** Every tag, following `Link: <...>; rel="next"` pages. */
  async listTags(repository: string): Promise<string[]> {
    const tags: string[] = [];
    let url: string | undefined = `/v2/${this.path(repository)}/tags/list?n=${this.pageSize}`;
    for (let pages = 0; url && pages < 10_000; pages++) {
      const res: Response = await this.http.send({
        method: 'GET',
        url,
        scopes: [this.scope(repository, 'pull')],
        what: `list tags of ${repository}`,
        accept: [404],
      });
      if (res.status === 404) {
        await res.body?.cancel();
        return [];
      }
      const body = parseJson(
        await this.http.readBody(res, { what: `list tags of ${repository}` }, MAX_MANIFEST_BYTES),
      ) as {
        tags?: unknown;
      } | null;
      const page = body?.tags ?? [];
      if (!Array.isArray(page) || page.some((t) => typeof t !== 'string'))
        throw new ExternalError(
          'REGISTRY_ERROR',
          `${this.name}: the tag list of ${repository} is not a list of tags`,
          {
            hint: 'the registry does not follow the distribution spec',
          },
        );
      tags.push(...(page as string[]));
      url = nextLink(res.headers.get('link'));
    }
    return tags;
  }

  private uploadLocation(res: Response, repository: string): URL {
    const location = res.headers.get('location');
    if (!location)
      throw new ExternalError(
        'REGISTRY_ERROR',
        `${this.name} started an upload to ${repository} without a Location`,
        {
          hint: 'the registry does not follow the distribution spec',
        },
      );
    return new URL(location, this.http.baseUrl);
  }

  private path(repository: string): string {
    return this.namespace ? `${this.namespace}/${repository}` : repository;
  }

  private scope(repository: string, actions: string): string {
    return `repository:${this.path(repository)}:${actions}`;
  }

  private manifestUrl(repository: string, reference: string): string {
    return `/v2/${this.path(repository)}/manifests/${encodeURIComponent(reference)}`;
  }
}

/** The next page from a `Link: </v2/x/tags/list?last=a&n=2>; rel="next"` header. */
export function nextLink(header: string | null): string | undefined {
  const match = header ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(header) : null;
  return match?.[1];
}

function mediaTypeOf(res: Response, bytes: Uint8Array): string {
  const header = res.headers.get('content-type')?.split(';')[0]?.trim();
  if (header && header !== 'application/json' && header !== 'text/plain') return header;
  try {
    const declared = (JSON.parse(Buffer.from(bytes).toString('utf8')) as { mediaType?: string }).mediaType;
    if (declared) return declared;
  } catch {
    // fall back to the header below
  }
  return header ?? 'application/octet-stream';
}

/** `repo:tag`, or `repo@sha256:...` for a digest, as docker writes a reference (for messages). */
function refText(repository: string, reference: string): string {
  return `${repository}${/^[a-z0-9]+:[a-f0-9]{32,}$/i.test(reference) ? '@' : ':'}${reference}`;
}
