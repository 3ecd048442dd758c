import { createReadStream, realpathSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, posix, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ConfigError } from '../../errors.ts';
import { pathOf, sendError, sendMethodNotAllowed, sendNotFound } from './json-response.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

// The page and its version document must never be cached: a deployment that moved to a new tag
// must show (and report to `release verify`) the new version on the next load. Vite's hashed
// assets never change under one name, so they may be cached for good.
const NO_STORE = new Set(['/index.html', '/version.json']);

export type StaticHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Serve the files of a built web client from `root`: `/` is `index.html`, other paths are files
 * under the root. Requests that leave the root (`..`, encoded or not, or a symlink pointing out),
 * name a dotfile (or a symlink resolving to one), or name a directory get 404; only GET and HEAD are allowed.
 */
export function createStaticHandler(root: string): StaticHandler {
  const base = checkedRoot(root);
  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(res);
    const path = safePath(pathOf(req.url));
    if (path === undefined) return sendError(res, 400, 'malformed path');
    if (path === null) return sendNotFound(res);
    const file = await fileUnder(base, path);
    if (!file) return sendNotFound(res);
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(file.size),
      'Cache-Control': NO_STORE.has(path)
        ? 'no-store'
        : path.startsWith('/assets/')
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') return void res.end();
    await pipeline(createReadStream(file.path), res).catch(() => res.destroy());
  };
}

function checkedRoot(root: string): string {
  try {
    const real = realpathSync(root);
    if (statSync(real).isDirectory()) return real;
  } catch {
    // reported below
  }
  throw new ConfigError(`web root ${root} is not a readable directory`, [], {
    hint: 'point SERVICE_WEB_ROOT at the output of `npm run build:web` (dist/web), or unset it',
  });
}

/**
 * The decoded, normalized request path; undefined when it cannot be decoded, null when it may not
 * be served (dotfiles, backslashes, NUL, directories other than `/`).
 */
function safePath(raw: string): string | null | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return null;
  // Normalizing an absolute path cannot climb above `/`, so `/../../etc/passwd` becomes `/etc/passwd`
  // under the root; the realpath check below also stops symlinks that point out.
  const path = posix.normalize(decoded);
  if (path === '/') return '/index.html';
  if (path.endsWith('/') || path.split('/').some((part) => part.startsWith('.'))) return null;
  return path;
}

async function fileUnder(base: string, path: string): Promise<{ path: string; size: number } | undefined> {
  try {
    // The checks apply to the file that would be read, not to the request: a symlink inside the
    // root (`/innocent.txt -> .secret`) must not reach a dotfile or leave the (real) root.
    const real = await realpath(join(base, path));
    if (!real.startsWith(base + sep)) return undefined;
    if (
      relative(base, real)
        .split(sep)
        .some((part) => part.startsWith('.'))
    )
      return undefined;
    const info = await stat(real);
    return info.isFile() ? { path: real, size: info.size } : undefined;
  } catch {
    return undefined;
  }
}
