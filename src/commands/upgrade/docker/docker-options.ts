import { Option } from 'commander';
import type { EngineFlags } from '../upgrade-input.ts';

/**
 * The flags every Docker engine of `release upgrade` takes (Swarm and Compose): declared once
 * here, named by each of their registry entries and added to the command once (engines.ts
 * removes the repeat). An engine that does not talk to a Docker engine (Kubernetes) does not
 * name this list, so it does not inherit `--docker-host`.
 */
export const DOCKER_OPTIONS: readonly Option[] = [
  new Option(
    '--docker-host <url>',
    'the Swarm manager, or the engine of the Compose project (unix:///path or tcp://host:port; default DOCKER_HOST)',
  ),
];

/** `--docker-host`, else DOCKER_HOST, else the default socket. */
export function dockerHostOf(flags: EngineFlags, env: Record<string, string | undefined>): string {
  const flag = flags['dockerHost'];
  return (typeof flag === 'string' ? flag : undefined) ?? env['DOCKER_HOST'] ?? 'unix:///var/run/docker.sock';
}
