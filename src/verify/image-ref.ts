/** The parts of an image reference: `[host[:port]/]path[:tag][@digest]`. */
export interface ImageRef {
  /** Everything before the tag and digest: `127.0.0.1:5000/acme/service-worker`. */
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}

export function parseImageRef(reference: string): ImageRef {
  const at = reference.indexOf('@');
  const digest = at >= 0 ? reference.slice(at + 1) : undefined;
  const named = at >= 0 ? reference.slice(0, at) : reference;
  // A colon after the last slash is a tag; one before it belongs to a registry port.
  const colon = named.lastIndexOf(':');
  const hasTag = colon > named.lastIndexOf('/');
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
 */
export function isImageOf(reference: string, repository: string): boolean {
  const found = parseImageRef(reference).repository;
  return found === repository || found.endsWith(`/${repository}`);
}
