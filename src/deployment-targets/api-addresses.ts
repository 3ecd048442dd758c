import { type RoleCommand, roleOfCommand } from '../config/role-of-command.ts';

/** A workload of the API's image as an engine shows it: what it runs and the ports it answers on. */
export interface ApiWorkload {
  argv: readonly string[];
  ports: readonly number[];
}

/**
 * The addresses the API may answer at, from the running workloads of its image: only the API's own
 * when the image runs several roles (its command tells it apart, as verify's rows do), each port
 * once, at the engine's host. Pure: the Docker adapter hands in what the engine showed.
 */
export function apiAddresses(
  workloads: readonly ApiWorkload[],
  roles: readonly RoleCommand[],
  apiArtifact: string,
  hostName: string,
): string[] {
  const own =
    roles.length > 1
      ? workloads.filter((w) => roleOfCommand(w.argv, roles)?.artifact === apiArtifact)
      : workloads;
  const ports = [...new Set(own.flatMap((w) => w.ports))].sort((a, b) => a - b);
  const host = hostName.includes(':') ? `[${hostName}]` : hostName;
  return ports.map((port) => `http://${host}:${port}`);
}
