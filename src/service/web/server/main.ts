import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../../errors.ts';
import { closeOnSignal, listen, readListenAddress } from '../../http/lifecycle.ts';
import { reportStartupError, runsFromSource, sourceDirOf } from '../../http/startup.ts';
import { parseApiUrl } from './api-proxy.ts';
import { createWebServer } from './web-server.ts';

const NAME = 'service-web';
const GRACE_MS = 10_000;

// Entry point of the web image's server (bin/service-web.js in a checkout, the esbuild bundle in
// the image): it runs as soon as it is loaded.

/**
 * `service-web`: serve a built web client. Env: `HOST` (127.0.0.1), `PORT` (8080; 0 picks a free
 * port), `WEB_ROOT` (default: `web/` beside this bundle, else `dist/web` of a checkout),
 * `API_URL` (optional: forward `/api/*` there). Prints one line once listening:
 * `service-web <version> serving <root> on http://<host>:<port>`, the version being the one in
 * the served `version.json`. Runs until SIGTERM/SIGINT; returns the exit code.
 */
async function main(env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const address = readListenAddress(env, { host: 'HOST', port: 'PORT' }, { host: '127.0.0.1', port: 8080 });
    const root = webRoot(env['WEB_ROOT']);
    const apiUrl = env['API_URL']?.trim() ? parseApiUrl(env['API_URL'].trim()) : undefined;
    const server = createWebServer({ root, apiUrl });
    const url = await listen(server, address);
    process.stdout.write(`${NAME} ${await servedVersion(root)} serving ${root} on ${url}\n`);
    return await closeOnSignal(server, {
      name: NAME,
      graceMs: GRACE_MS,
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (error) {
    return reportStartupError(NAME, error);
  }
}

function webRoot(setting: string | undefined): string {
  if (setting?.trim()) {
    const root = resolve(setting.trim());
    if (!existsSync(join(root, 'index.html'))) {
      throw new ConfigError(`WEB_ROOT ${root} has no index.html`, [], {
        hint: 'point WEB_ROOT at the output of npm run build:web (dist/web)',
      });
    }
    return root;
  }
  // Bundled for the image: web/ beside the bundle. From a checkout: dist/web of the package.
  const here = sourceDirOf(import.meta.url);
  const found = runsFromSource(import.meta.url) ? resolve(here, '../../../../dist/web') : join(here, 'web');
  if (!existsSync(join(found, 'index.html'))) {
    throw new ConfigError(`no built web client in ${found}`, [], {
      hint: 'run npm run build:web (writes dist/web), or set WEB_ROOT to a built client',
    });
  }
  return found;
}

/** The version the served build reports in its version.json; `unknown` if absent or unreadable. */
async function servedVersion(root: string): Promise<string> {
  try {
    const { version } = JSON.parse(await readFile(join(root, 'version.json'), 'utf8')) as {
      version?: unknown;
    };
    if (typeof version === 'string' && /^[\x21-\x7e]{1,128}$/.test(version)) return version;
  } catch {
    // fall through
  }
  return 'unknown';
}

process.exitCode = await main(process.env);
