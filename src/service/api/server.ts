import type { Server } from 'node:http';
import { CLI_PACKAGE_HEADER, cliPackageName } from '../cli-package-header.ts';
import { createHardenedServer, type ServerLimits } from '../http/create-server.ts';
import { pathOf, sendNotFound } from '../http/json-response.ts';
import { createStaticHandler } from '../http/static-files.ts';
import { CLI_ARCHIVE_PATH, type CliArchive, createArchiveHandler } from './cli-archive.ts';
import { MIN_CLI_VERSION } from './min-cli-version.ts';
import { createVersionHandler, VERSION_PATH } from './version-handler.ts';

export interface ApiServerOptions {
  /** The version to report, resolved once at start-up. */
  version: string;
  /** Only for embedders and tests of the handler; the reference server always uses MIN_CLI_VERSION. */
  minCliVersion?: string;
  /** The CLI archive to serve; undefined answers 404 JSON at the download path. */
  archive?: CliArchive | undefined;
  /** Directory of the built web client to serve at `/` (same origin as the API). */
  webRoot?: string | undefined;
  limits?: Partial<ServerLimits>;
  /** The npm package the CLI is published as (SERVICE_CLI_PACKAGE), announced in a header. */
  cliPackage?: string | undefined;
}

/**
 * The reference API server, not yet listening: `/api/version`, the CLI archive download, and
 * optionally the web client's static files. Any other path under `/api/` (and everything else
 * without a web root) is 404 JSON.
 */
export function createApiServer(options: ApiServerOptions): Server {
  const version = createVersionHandler({
    version: options.version,
    minCliVersion: options.minCliVersion ?? MIN_CLI_VERSION,
  });
  const archive = createArchiveHandler(options.archive);
  const cliPackage = cliPackageName(options.cliPackage);
  const web = options.webRoot === undefined ? undefined : createStaticHandler(options.webRoot);
  return createHardenedServer(
    (req, res) => {
      // The version probe that every CLI invocation makes is checked first and pays for nothing else.
      const path = pathOf(req.url);
      if (path === VERSION_PATH) {
        if (cliPackage) res.setHeader(CLI_PACKAGE_HEADER, cliPackage);
        return version(req, res);
      }
      if (path === CLI_ARCHIVE_PATH) return archive(req, res);
      if (web && path !== '/api' && !path.startsWith('/api/')) return web(req, res);
      sendNotFound(res);
    },
    { name: 'service-api', limits: options.limits },
  );
}
