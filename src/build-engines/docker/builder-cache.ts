import type { BuilderKind } from './docker-builder.ts';

/**
 * What a builder cannot do with the cache options an artifact names, one sentence each (empty:
 * all can be done). The docker CLI's own BuildKit (20.10-22, no buildx) has no `--cache-to`, and
 * its `--cache-from` takes image names only, split at commas: `type=local,src=dir` becomes two
 * "image names" that fail to import, and the build goes on without a cache and without an error,
 * so such a value must be refused before the build rather than left to pass unnoticed.
 */
export function cacheUnsupported(
  kind: BuilderKind,
  cache: { from?: readonly string[] | undefined; to?: readonly string[] | undefined } | undefined,
): string[] {
  if (kind === 'buildx') return [];
  const out: string[] = [];
  for (const from of cache?.from ?? [])
    if (/(^|,)\s*type\s*=/.test(from) || from.includes(','))
      out.push(
        `cache.from "${from}": the docker CLI's own BuildKit reads a cache only from an image (--cache-from <registry>/<image>:<tag>); a "type=" source needs buildx`,
      );
  if (cache?.to?.length)
    out.push(
      `cache.to: the docker CLI's own BuildKit has no --cache-to; only buildx exports a cache (an image built with the build arg BUILDKIT_INLINE_CACHE=1 carries its own, for cache.from)`,
    );
  return out;
}
