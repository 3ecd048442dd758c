import type { ReleaseImage } from './gitops-types.ts';

/** An image reference split into its parts: `ghcr.io/acme/api:v1@sha256:…`. */
export interface ImageRef {
  repository: string;
  tag?: string;
  digest?: string;
}

/** Split a reference; the tag is what follows the last `:` after the last `/` (a port is not a tag). */
export function parseImageRef(reference: string): ImageRef {
  const at = reference.indexOf('@');
  const digest = at >= 0 ? reference.slice(at + 1) : undefined;
  const name = at >= 0 ? reference.slice(0, at) : reference;
  const colon = name.lastIndexOf(':');
  const hasTag = colon > name.lastIndexOf('/');
  return {
    repository: hasTag ? name.slice(0, colon) : name,
    ...(hasTag ? { tag: name.slice(colon + 1) } : {}),
    ...(digest ? { digest } : {}),
  };
}

export function formatImageRef(ref: ImageRef): string {
  return `${ref.repository}${ref.tag ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** `tag` or `tag@digest`, as a chart's `tag` value carries it (mattermost pins this way). */
export function splitTagValue(value: string): { tag: string; digest?: string } {
  const at = value.indexOf('@');
  return at < 0 ? { tag: value } : { tag: value.slice(0, at), digest: value.slice(at + 1) };
}

/**
 * The release image a repository names: the record's full repository, the config's image name,
 * or any registry and namespace in front of that name (`docker.io/acme/service-api` for
 * `service-api`). Docker Hub's implied `docker.io/` and `library/` are not spelled out by users.
 */
export function releaseImageOf(repository: string, images: ReleaseImage[]): ReleaseImage | undefined {
  const repo = repository.replace(/^docker\.io\//, '').replace(/^library\//, '');
  return images.find(
    (image) =>
      repo === image.image ||
      repo.endsWith(`/${image.image}`) ||
      (image.repository !== undefined && repository === image.repository),
  );
}
