import { join, resolve } from 'node:path';
import { closeOnSignal, listen, readListenAddress } from '../http/lifecycle.ts';
import { reportStartupError, resolveOwnVersion, runsFromSource, sourceDirOf } from '../http/startup.ts';
import { loadCliArchive } from './cli-archive.ts';
import { createApiServer } from './server.ts';

// Entry point of the reference API (bin/service-api.js in a checkout, the bundle in an image).
// Prints one line when listening; warnings and shutdown go to stderr.

const NAME = 'service-api';
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(env: NodeJS.ProcessEnv): Promise<number> {
  const address = readListenAddress(env, { host: 'HOST', port: 'PORT' }, { host: '127.0.0.1', port: 8080 });
  const { version, source } = await resolveOwnVersion(import.meta.url, env, (line) =>
    log(`${NAME}: warning: ${line}`),
  );
  const archiveFile = env['SERVICE_CLI_ARCHIVE']?.trim() || defaultArchiveFile();
  const archive = await loadCliArchive(archiveFile);
  log(
    archive
      ? `${NAME}: serving CLI archive ${archive.file} (sha256 ${archive.sha256})`
      : `${NAME}: warning: no CLI archive at ${archiveFile}; the download answers 404`,
  );
  const webRoot = env['SERVICE_WEB_ROOT']?.trim() || undefined;
  const cliPackage = env['SERVICE_CLI_PACKAGE']?.trim() || undefined;
  const server = createApiServer({ version, archive, webRoot, cliPackage });
  if (webRoot) log(`${NAME}: serving the web client from ${webRoot}`);
  const url = await listen(server, address);
  // Signal handlers first: whoever waits for the line below may signal at once.
  const stopped = closeOnSignal(server, { name: NAME, graceMs: 10_000, log });
  process.stdout.write(`${NAME} ${version} (source ${source}) listening on ${url}\n`);
  return stopped;
}

/** Beside the bundle in an image; `dist/` of the package root in a checkout. */
function defaultArchiveFile(): string {
  const here = sourceDirOf(import.meta.url);
  return runsFromSource(import.meta.url)
    ? resolve(here, '../../../dist/service-cli.tar.gz')
    : join(here, 'service-cli.tar.gz');
}

process.exitCode = await main(process.env).catch((error: unknown) => reportStartupError(NAME, error));
