import { type CommandLine, commandMatch, runsLast } from '../text/command-words.ts';
import { imageArtifacts, rolesOfImage } from './artifacts.ts';
import type { ArtifactImageRole } from './constants.ts';
import type { ReleaseConfig } from './schema.ts';

/** One role run from an image: its artifact, its role, and the command that tells it apart. */
export interface RoleCommand {
  artifact: string;
  role?: ArtifactImageRole;
  command?: readonly string[];
}

/** The roles run from `image`, by the config (the builder first); one entry for an image of one role. */
export function roleCommands(config: Pick<ReleaseConfig, 'artifacts'>, image: string): RoleCommand[] {
  return rolesOfImage(config, image).map((a) => ({
    artifact: a.name,
    ...(a.role ? { role: a.role } : {}),
    ...(a.command ? { command: a.command } : {}),
  }));
}

/**
 * The images that run a one-shot job (a migration of the API's image) besides `readImage`, the
 * image already read with all its roles (the worker's): each with its roles, so its containers
 * are told apart and its job read by its last run.
 */
export function jobImages(
  config: Pick<ReleaseConfig, 'artifacts'>,
  readImage: string,
): { image: string; roles: RoleCommand[] }[] {
  const images = new Set(
    imageArtifacts(config)
      .filter((a) => a.role === 'job' && a.image !== readImage)
      .map((a) => a.image),
  );
  return [...images].map((image) => ({ image, roles: roleCommands(config, image) }));
}

/**
 * Which role a container or service of a shared image runs, from the words it runs (entrypoint
 * then command, as the engine reports them or a deployment file writes them, a list or a string):
 * the role whose `command` it runs (`commandMatch`: through `sh -c`, `tini --`, `dumb-init`, an
 * entrypoint script), the longest when several are (`celery -A acme beat` before `celery`); else
 * the one role that declares no command (it runs the image's default). A line running several
 * commands is the role of the last one it runs (an API whose `sh -c` migrates, then serves).
 * Undefined when neither
 * decides: a container of the image that is none of its declared roles. Pure; Docker, Compose,
 * Swarm and the deployment files alike hand it their argv.
 */
export function roleOfCommand(argv: CommandLine, roles: readonly RoleCommand[]): RoleCommand | undefined {
  if (roles.length === 1) return roles[0];
  let best: RoleCommand | undefined;
  let bestLength = 0;
  let bestLast = false;
  for (const role of roles) {
    const length = role.command ? commandMatch(argv, role.command) : 0;
    if (length === 0) continue;
    // A line running several commands (`migrate && serve`) is the role of the one it ends with:
    // that is the process the container keeps running.
    const last = runsLast(argv, role.command!);
    if ((last && !bestLast) || (last === bestLast && length > bestLength)) {
      best = role;
      bestLength = length;
      bestLast = last;
    }
  }
  if (best) return best;
  const defaults = roles.filter((r) => !r.command);
  return defaults.length === 1 ? defaults[0] : undefined;
}
