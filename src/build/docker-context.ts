import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { type LayerEntry, packTar } from '../oci-image/layer.ts';
import { recipeEntries } from './recipe-entries.ts';

// A CommonJS module whose types declare an ES default export: load it as CommonJS.
const dockerignore = createRequire(import.meta.url)(
  '@balena/dockerignore',
) as typeof import('@balena/dockerignore').default;

/** The name a Dockerfile from outside the context gets inside it (as `docker build -f` does). */
const OUTSIDE_DOCKERFILE = '.release.Dockerfile';

export interface DockerContext {
  /** The context as the uncompressed tar the engine's build endpoint takes. */
  tar: Buffer;
  /** The Dockerfile's path inside that tar. */
  dockerfile: string;
}

/**
 * The docker build context, made by us: the context folder minus what its `.dockerignore`
 * excludes (Docker's own rules, via @balena/dockerignore, a port of moby's matcher), the
 * Dockerfile (always sent, even when ignored or outside the folder), and `extra` files the build
 * adds (the CLI archive for the api). Entries are sorted with fixed times, so equal inputs give
 * an equal context and the engine's cache can work.
 */
export async function dockerContext(options: {
  contextDir: string;
  dockerfile: string;
  /** The Dockerfile's content to send instead of the file's (the build's stamped copy). */
  dockerfileText?: string;
  /** `mtime` (seconds): the file's own time in the tar, instead of `epoch`. */
  extra: readonly { path: string; source: string; mtime?: number }[];
  epoch: number;
}): Promise<DockerContext> {
  const ignoreFile = `${options.contextDir}/.dockerignore`;
  const rules = existsSync(ignoreFile) ? (await readFile(ignoreFile, 'utf8')).split(/\r?\n/) : [];
  const filter = dockerignore().add(rules);
  const inside = relative(options.contextDir, options.dockerfile);
  const dockerfile = inside.startsWith('..') || inside.startsWith('/') ? OUTSIDE_DOCKERFILE : inside;
  const always = new Set([dockerfile, '.dockerignore']);
  const all = await recipeEntries([{ source: options.contextDir, to: '/' }]);
  const kept: LayerEntry[] = all.filter((entry) => {
    const path = entry.path.replace(/^\/+/, '');
    if (!path) return false;
    if (always.has(path)) return true;
    // A folder is sent only for what it holds (its kept children bring it back as a parent).
    return entry.type !== 'dir' && !filter.ignores(path);
  });
  if (options.dockerfileText !== undefined) {
    const at = kept.findIndex((entry) => entry.path.replace(/^\/+/, '') === dockerfile);
    if (at >= 0) kept.splice(at, 1);
    kept.push({ type: 'file', path: dockerfile, content: options.dockerfileText });
  } else if (dockerfile === OUTSIDE_DOCKERFILE)
    kept.push({ type: 'file', path: OUTSIDE_DOCKERFILE, source: options.dockerfile });
  for (const file of options.extra) {
    const path = file.path.replace(/^\/+/, '');
    const at = kept.findIndex((entry) => entry.path.replace(/^\/+/, '') === path);
    if (at >= 0) kept.splice(at, 1); // the build's own file wins over a stale one in the folder
    kept.push({
      type: 'file',
      path,
      source: file.source,
      mode: 0o644,
      ...(file.mtime === undefined ? {} : { mtime: file.mtime }),
    });
  }
  return { tar: await packTar(kept, options.epoch), dockerfile };
}
