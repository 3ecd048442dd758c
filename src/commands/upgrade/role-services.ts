import { artifactWithRole, hasWebClient, imageOfRole } from '../../config/artifacts.ts';
import { roleCommands, roleOfCommand } from '../../config/role-of-command.ts';
import { UsageError } from '../../errors.ts';
import { isImageOf } from '../../registry/image-ref.ts';
import type { CommandLine } from '../../text/command-words.ts';
import { SERVICE_ROLES, type ServiceRole } from '../../upgrade/deployment-types.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

/** A service as an engine runs it: its name, its image and the words it runs. */
export interface DeployedService {
  name: string;
  image: string | undefined;
  /** Entrypoint then command as the deployment gives them (a list, or a Compose string). */
  argv: CommandLine;
}

/** Each role's service, and how each was decided (for the run's timeline). */
export interface RoleServices {
  names: Partial<Record<ServiceRole, string>>;
  /** Why each role found (not named) has its service: the plan's WHY. */
  why: Partial<Record<ServiceRole, string>>;
  found: string[];
}

/**
 * The service of each role, found as verify finds them: a service running the role's image whose
 * command is the role's (`roleOfCommand`: the role's `command`, through `sh -c` or an init
 * process; the image's default for the one role that declares none). A name given (`--service`,
 * the deployment's `services`) wins. Of several services of one role, the one named after the
 * role's artifact, else the first by name; every service of a moving image moves anyway (the
 * plan finds them), the one chosen is the one whose version is awaited. Web only when the config
 * has a web client and the upgrade has its URL to prove it by (`options.web`). Pure.
 */
export function findRoleServices(
  config: UpgradeRunContext['config'],
  services: readonly DeployedService[],
  named: Partial<Record<ServiceRole, string>>,
  options: { web: boolean },
): RoleServices {
  const names: Partial<Record<ServiceRole, string>> = {};
  const reasons: Partial<Record<ServiceRole, string>> = {};
  const found: string[] = [];
  for (const role of SERVICE_ROLES) {
    const given = named[role];
    if (given) {
      names[role] = given;
      continue;
    }
    const artifact = artifactWithRole(config, role);
    if (!artifact || (role === 'web' && !(options.web && hasWebClient(config)))) continue;
    const repository = imageOfRole(config, role);
    const roles = roleCommands(config, repository);
    const runs = services
      .filter((s) => s.image !== undefined && isImageOf(s.image, repository))
      .filter((s) => roleOfCommand(s.argv, roles)?.artifact === artifact.name)
      .sort(
        (a, b) =>
          Number(b.name === artifact.name) - Number(a.name === artifact.name) || compare(a.name, b.name),
      );
    const chosen = runs[0];
    if (!chosen) continue;
    names[role] = chosen.name;
    const why = artifact.command
      ? `runs ${repository} with "${artifact.command.join(' ')}"`
      : `runs ${repository}`;
    reasons[role] = `found: ${why}`;
    const others = runs.length > 1 ? ` (of ${runs.map((s) => s.name).join(', ')})` : '';
    found.push(`${role}: service ${chosen.name}${others}, found: it ${why}`);
  }
  return { names, why: reasons, found };
}

/**
 * The role each service of a released image runs, by its command (`roleOfCommand`): a scheduler
 * run from the API's image is a worker. Services of other images, or of no declared role, are left out.
 */
export function rolesOfServices(
  config: UpgradeRunContext['config'],
  services: readonly DeployedService[],
): Record<string, ServiceRole> {
  const out: Record<string, ServiceRole> = {};
  const images = [
    ...new Set(SERVICE_ROLES.filter((r) => artifactWithRole(config, r)).map((r) => imageOfRole(config, r))),
  ];
  for (const service of services) {
    const repository = images.find((image) => service.image !== undefined && isImageOf(service.image, image));
    if (!repository) continue;
    const role = roleOfCommand(service.argv, roleCommands(config, repository))?.role;
    if (role && (SERVICE_ROLES as readonly string[]).includes(role)) out[service.name] = role as ServiceRole;
  }
  return out;
}

/**
 * API and worker move together (spec 9.5): both must have a service, named or found. Refused
 * with what the deployment runs, so the operator sees why none was found.
 */
export function requireApiAndWorker(
  names: Partial<Record<ServiceRole, string>>,
  services: readonly DeployedService[],
  config: UpgradeRunContext['config'],
): void {
  const missing = (['api', 'worker'] as const).filter(
    (role) => !names[role] && artifactWithRole(config, role),
  );
  if (missing.length === 0) return;
  const seen = services
    .slice(0, 12)
    .map((s) => `${s.name} (${s.image ?? 'no image'})`)
    .join(', ');
  throw new UsageError(
    'UPGRADE_NEEDS_API_AND_WORKER',
    `API and worker are upgraded together: no service runs the ${missing.map((r) => `${r} (${imageOfRole(config, r)})`).join(' or the ')}`,
    {
      hint: `name it: release upgrade --service ${missing[0]}=<service> (the deployment runs ${seen || 'no service'})`,
    },
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
