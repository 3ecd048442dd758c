import { OCI_LAYOUT_PREFIX } from '../../config/schema.ts';
import { UsageError } from '../../errors.ts';

/** An image reference split into what `openStore` takes and what the store is asked for. */
export interface ImageRef {
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
 * The tag defaults to `latest`, as docker does.
 */
export function parseImageRef(text: string): ImageRef {
  const trimmed = text.trim();
  let rest = trimmed;
  let reference = 'latest';
  const at = rest.lastIndexOf('@');
  if (at > 0) {
    reference = rest.slice(at + 1);
    rest = rest.slice(0, at);
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon > rest.lastIndexOf('/') && colon > OCI_LAYOUT_PREFIX.length - 1) {
      reference = rest.slice(colon + 1);
      rest = rest.slice(0, colon);
    }
  }
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

/** `<store>/<repository>:<tag>` or `@<digest>`: the inverse of parseImageRef. */
export function formatImageRef(store: string, repository: string, reference: string): string {
  return `${store}/${repository}${DIGEST.test(reference) ? '@' : ':'}${reference}`;
}

function bad(text: string, why: string): UsageError {
  return new UsageError('IMAGE_REFERENCE_INVALID', `image reference "${text}" is not valid: ${why}`, {
    hint: 'use oci-layout:<dir>/<repository>:<tag> or <host[:port]>/<repository>:<tag>',
  });
}
