import { artifactWithRole } from '../config/artifacts.ts';
import { roleCommands } from '../config/role-of-command.ts';
import type { EngineTarget } from '../deployment-engines/engine-target.ts';
import { dockerClientAt, engineAddress } from '../docker-client/engine-address.ts';
import { publishedWorkloads } from '../docker-client/published-ports.ts';
import { UsageError } from '../errors.ts';
import { boundedGet } from '../http/bounded-get.ts';
import type { BaseContext } from '../pipeline/context.ts';
import { apiAddresses } from './api-addresses.ts';

const ENGINE_TIMEOUT_MS = 10_000;
const PROBE_TIMEOUT_MS = 3_000;

/**
 * `--docker` or `--compose` without `--url`: the API's address, found on the engine that runs it
 * (the ports its containers publish, or listen on with the host's network; a Swarm service's
 * published ports). Of several, the ones whose version endpoint answers; exactly one is taken, else
 * the operator names it (exit 2, the candidates listed). Never a guess.
 */
export async function apiUrlFromEngine(
  engine: EngineTarget,
  base: BaseContext,
  code: string,
  command: string,
): Promise<string> {
  const api = artifactWithRole(base.config, 'api');
  const refuse = (message: string, hint: string) => new UsageError(`${code}_NO_URL`, message, { hint });
  if (!api)
    throw refuse(
      'which deployment? the config declares no API to find',
      `release ${command} --url <api base URL>`,
    );
  const address = engineAddress({ ...(engine.host ? { host: engine.host } : {}), env: base.env });
  const local = address.options.socketPath !== undefined;
  const docker = dockerClientAt(address, ENGINE_TIMEOUT_MS);
  const workloads = await publishedWorkloads(docker, {
    repository: api.image,
    ...(engine.composeProject ? { composeProject: engine.composeProject } : {}),
    local,
  }).catch((error: Error) => {
    throw refuse(
      `which deployment? --url was not given, and ${address.label} could not be asked where the API runs: ${error.message}`,
      `release ${command} --url <api base URL> …`,
    );
  });
  const host = local ? '127.0.0.1' : String(address.options.host);
  const candidates = apiAddresses(workloads, roleCommands(base.config, api.image), api.name, host);
  const where = engine.composeProject ? `Compose project "${engine.composeProject}"` : address.label;
  if (candidates.length === 0) {
    throw refuse(
      `which deployment? --url was not given, and no running container of ${api.image} on ${where} publishes a port`,
      `release ${command} --url http://<host>:<port> … (the API's address)`,
    );
  }
  if (candidates.length === 1) return candidates[0]!;
  const answering = (
    await Promise.all(
      candidates.map(async (url) => {
        const answer = await boundedGet(`${url}/api/version`, {
          timeoutMs: PROBE_TIMEOUT_MS,
          accept: 'application/json',
        }).catch(() => undefined);
        return answer && answer.status >= 200 && answer.status < 300 ? url : undefined;
      }),
    )
  ).filter((url): url is string => url !== undefined);
  if (answering.length === 1) return answering[0]!;
  throw refuse(
    `which deployment? --url was not given, and the API's containers on ${where} answer at ${(answering.length ? answering : candidates).join(', ')}`,
    `name one: release ${command} --url ${(answering[0] ?? candidates[0])!} …`,
  );
}
