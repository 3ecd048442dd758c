import { OCI_LAYOUT_PREFIX } from '../config/constants.ts';
import { UsageError } from '../errors.ts';

/**
 * Image references, in one place. Two readings of the same syntax:
 * - `splitImageRef`: any reference as Docker writes it (`service-worker:v1`,
 *   `docker.io/library/x`, `127.0.0.1:5000/acme/x@sha256:...`), as found on a running container;
 *   never throws.
 * - `parseStoreImageRef`: a reference the toolkit must open (`oci-layout:<dir>/<repo>[:tag]` or
 *   `host[:port]/<repo>[:tag|@digest]`), checked strictly and split into store and repository.
 */

/** The parts of `[host[:port]/]path[:tag][@digest]`. */
export interface ImageName {
  /** Everything before the tag and digest: `127.0.0.1:5000/acme/service-worker`. */
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}

export function splitImageRef(reference: string): ImageName {
  const at = reference.lastIndexOf('@');
  const digest = at >= 0 ? reference.slice(at + 1) : undefined;
  const named = at >= 0 ? reference.slice(0, at) : reference;
  // A colon after the last slash is a tag; one before it belongs to a registry port, and the one
  // in `oci-layout:` belongs to the store's scheme.
  const colon = named.lastIndexOf(':');
  const prefix = named.startsWith(OCI_LAYOUT_PREFIX) ? OCI_LAYOUT_PREFIX.length : 0;
  const hasTag = colon > named.lastIndexOf('/') && colon >= prefix;
  return {
    repository: hasTag ? named.slice(0, colon) : named,
    tag: hasTag ? named.slice(colon + 1) : undefined,
    digest,
  };
}

/**
 * Whether an image reference is of the configured repository (`service-worker`), wherever it
 * was pulled from: `service-worker:v1`, `docker.io/library/service-worker`, `127.0.0.1:5000/acme/
 * service-worker@sha256:...` all are; `service-worker-old` and `acme/not-service-worker` are not.
 * A repository configured by Docker Hub's full name (`docker.io/netboxcommunity/netbox`, as
 * netbox-docker's compose file writes it) is that one image, however it is written: the docker CLI
 * writes a Swarm service's image short (`netboxcommunity/netbox:v4.1`), whatever the stack said.
 */
export function isImageOf(reference: string, repository: string): boolean {
  const found = splitImageRef(reference).repository;
  if (onDockerHub(repository)) return dockerHubName(found) === dockerHubName(repository);
  return found === repository || found.endsWith(`/${repository}`);
}

/** Whether a repository names Docker Hub's registry (`docker.io/...`). */
function onDockerHub(repository: string): boolean {
  return DOCKER_HUB_NAMES.has(repository.split('/')[0]!);
}

/** A repository's path on Docker Hub (`library/nginx` for `nginx`); another registry's is kept whole. */
function dockerHubName(repository: string): string {
  const parts = repository.split('/');
  const first = parts[0]!;
  if (DOCKER_HUB_NAMES.has(first)) parts.shift();
  // A first part with a dot or a port, or localhost, is a registry host other than Docker Hub.
  else if (parts.length > 1 && (/[.:]/.test(first) || first === 'localhost')) return `//${repository}`;
  return parts.length === 1 ? `library/${parts[0]}` : parts.join('/');
}

/** A reference split into what `openStore` takes and what the store is asked for. */
export interface StoreImageRef {
  /** The store: `oci-layout:<dir>` or `host[:port]` (the config's `registry` form). */
  store: string;
  /** Repository within the store (`node`, `base/node`). */
  repository: string;
  /** A tag or a `sha256:` digest. */
  reference: string;
  /** The reference as written, for messages. */
  text: string;
}

const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

/**
 * Parse `oci-layout:<dir>/<repository>[:tag|@digest]` (the last path component is the repository,
 * the rest is the layout store's directory) or `host[:port]/<repository>[:tag|@digest]`.
 * The tag defaults to `latest`, as docker does; a digest wins over a tag.
 */
export function parseStoreImageRef(text: string): StoreImageRef {
  const trimmed = text.trim();
  const { repository: rest, tag, digest } = splitImageRef(trimmed);
  const reference = digest ?? tag ?? 'latest';
  if (!(DIGEST.test(reference) || TAG.test(reference)))
    throw bad(text, `"${reference}" is not a tag or digest`);
  if (rest.startsWith(OCI_LAYOUT_PREFIX)) {
    const path = rest.slice(OCI_LAYOUT_PREFIX.length).replace(/\/+$/, '');
    const slash = path.lastIndexOf('/');
    const repository = path.slice(slash + 1);
    const dir = slash > 0 ? path.slice(0, slash) : slash === 0 ? '/' : '.';
    if (!REPOSITORY.test(repository)) throw bad(text, 'no repository name after the layout directory');
    return { store: `${OCI_LAYOUT_PREFIX}${dir}`, repository, reference, text: trimmed };
  }
  const slash = rest.indexOf('/');
  if (slash <= 0) throw bad(text, 'expected <registry host>/<repository>');
  const host = rest.slice(0, slash);
  if (!/[.:]/.test(host) && host !== 'localhost') throw bad(text, `"${host}" is not a registry host`);
  const repository = rest.slice(slash + 1);
  if (!REPOSITORY.test(repository)) throw bad(text, `"${repository}" is not a repository name`);
  return { store: host, repository, reference, text: trimmed };
}

/** Stores a base image may also be read from: an OCI archive or a `docker save` tarball, by file. */
export const ARCHIVE_PREFIXES = ['oci-archive:', 'docker-archive:'] as const;

/** Where Docker Hub serves its registry API, and the names Docker gives it. */
const DOCKER_HUB = 'registry-1.docker.io';
const DOCKER_HUB_NAMES = new Set(['docker.io', 'index.docker.io', DOCKER_HUB]);

/**
 * A base image named as Dockerfiles and compose files name it, resolved as Docker resolves it:
 * a first component without `.` or `:` (and not `localhost`) is a path on Docker Hub, whose API
 * is `registry-1.docker.io`; a single name there is under `library/`; no tag is `latest`. So
 * `python` -> `registry-1.docker.io/library/python:latest`, `ghcr.io/a/b:1` stays, and
 * `localhost:5000/x` is a registry on this machine. Also `oci-layout:<dir>/<repo>[:tag]` and
 * `oci-archive:<file>[:tag]` / `docker-archive:<file>[:tag]` (a `docker save` tarball), read
 * from disk for air-gapped builds (store is the prefix and file; repository empty).
 */
export function parseBaseImageRef(text: string): StoreImageRef {
  const trimmed = text.trim();
  const archive = ARCHIVE_PREFIXES.find((prefix) => trimmed.startsWith(prefix));
  if (archive) {
    const rest = trimmed.slice(archive.length);
    const colon = rest.lastIndexOf(':');
    const tag = colon > 0 && TAG.test(rest.slice(colon + 1)) && !rest.slice(colon + 1).includes('/');
    const file = tag ? rest.slice(0, colon) : rest;
    if (!file) throw bad(text, `no file after ${archive}`);
    return {
      store: `${archive}${file}`,
      repository: '',
      reference: tag ? rest.slice(colon + 1) : '',
      text: trimmed,
    };
  }
  if (trimmed.startsWith(OCI_LAYOUT_PREFIX)) return parseStoreImageRef(trimmed);
  const { repository: name, tag, digest } = splitImageRef(trimmed);
  const slash = name.indexOf('/');
  const first = slash > 0 ? name.slice(0, slash) : '';
  const hasHost = /[.:]/.test(first) || first === 'localhost';
  let host = hasHost ? first : 'docker.io';
  let path = hasHost ? name.slice(slash + 1) : name;
  if (DOCKER_HUB_NAMES.has(host)) {
    host = DOCKER_HUB;
    if (!path.includes('/')) path = `library/${path}`;
  }
  const reference = digest ? `@${digest}` : `:${tag ?? 'latest'}`;
  return { ...parseStoreImageRef(`${host}/${path}${reference}`), text: trimmed };
}

/** `<store>/<repository>:<tag>` or `@<digest>`: the inverse of parseStoreImageRef. */
export function formatImageRef(store: string, repository: string, reference: string): string {
  return `${store}/${repository}${DIGEST.test(reference) ? '@' : ':'}${reference}`;
}

function bad(text: string, why: string): UsageError {
  return new UsageError('IMAGE_REFERENCE_INVALID', `image reference "${text}" is not valid: ${why}`, {
    hint: 'use oci-layout:<dir>/<repository>:<tag> or <host[:port]>/<repository>:<tag>',
  });
}
