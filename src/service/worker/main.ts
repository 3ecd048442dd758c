import { closeOnSignal, listen, readListenAddress } from '../http/lifecycle.ts';
import { reportStartupError, resolveOwnVersion } from '../http/startup.ts';
import { createHealthServer, HEALTH_PATH } from './health-server.ts';

// Entry point of the reference worker (bin/service-worker.js in a checkout, the bundle in an
// image). The service's real jobs are out of scope (spec section 1); what the reference worker
// must do is carry the same version as the API and say so on its health port until told to stop.

const NAME = 'service-worker';
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(env: NodeJS.ProcessEnv): Promise<number> {
  const address = readListenAddress(
    env,
    { host: 'WORKER_HEALTH_HOST', port: 'WORKER_HEALTH_PORT' },
    { host: '127.0.0.1', port: 8081 },
  );
  const { version, source } = await resolveOwnVersion(import.meta.url, env, (line) =>
    log(`${NAME}: warning: ${line}`),
  );
  const server = createHealthServer({ version });
  const url = await listen(server, address);
  // Signal handlers first: whoever waits for the line below may signal at once.
  const stopped = closeOnSignal(server, { name: NAME, graceMs: 10_000, log });
  process.stdout.write(`${NAME} ${version} (source ${source}) health on ${url}${HEALTH_PATH}\n`);
  return stopped;
}

process.exitCode = await main(process.env).catch((error: unknown) => reportStartupError(NAME, error));
