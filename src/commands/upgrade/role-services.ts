import {
  artifactWithRole,
  imageArtifact,
  imageArtifacts,
  imageOfRole,
  webClients,
} from '../../config/artifacts.ts';
import type { ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import type { ImageRole } from '../../config/constants.ts';
import { roleCommands, roleOfCommand } from '../../config/role-of-command.ts';
import { UsageError } from '../../errors.ts';
import { isImageOf } from '../../registry/image-ref.ts';
import type { CommandLine } from '../../text/command-words.ts';
import { SERVICE_ROLES, type ServiceRole, type TargetArtifact } from '../../upgrade/deployment-types.ts';
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
  /** The service awaited for each role (web: the first web client's, when it moves). */
  names: Partial<Record<ServiceRole, string>>;
  /** Why each role found (not named) has its service: the plan's WHY. */
  why: Partial<Record<ServiceRole, string>>;
  /** Every web client that moves, by artifact (`web`, `admin`) -> its service. */
  webs: Record<string, string>;
  found: string[];
}

/** How the upgrade is asked to move web clients. */
export interface WebOptions {
  /** The web artifacts whose URL the upgrade has (`--web-url name=URL`, `webUrls`): they move. */
  webs: readonly string[];
  /** Services named by artifact (`--service admin=…`, the deployment's `services`). */
  more?: Readonly<Record<string, string>>;
}

/**
 * The service of each role, found as verify finds them: a service running the role's image whose
 * command is the role's (`roleOfCommand`: the role's `command`, through `sh -c` or an init
 * process; the image's default for the one role that declares none). A name given (`--service`,
 * the deployment's `services`) wins. Of several services of one role, the one named after the
 * role's artifact, else the first by name; every service of a moving image moves anyway (the
 * plan finds them), the one chosen is the one whose version is awaited. Every web client (an app
 * and an admin dashboard, each its own image) is found the same way by its own image, when the
 * upgrade has its URL to prove it by (`options.webs`) or it is named. Pure.
 */
export function findRoleServices(
  config: UpgradeRunContext['config'],
  services: readonly DeployedService[],
  named: Partial<Record<ServiceRole, string>>,
  options: WebOptions,
): RoleServices {
  const names: Partial<Record<ServiceRole, string>> = {};
  const reasons: Partial<Record<ServiceRole, string>> = {};
  const webs: Record<string, string> = {};
  const found: string[] = [];
  const find = (artifact: ImageArtifactConfig, label: string) => {
    const roles = roleCommands(config, artifact.image);
    const runs = services
      .filter((s) => s.image !== undefined && isImageOf(s.image, artifact.image))
      .filter((s) => roleOfCommand(s.argv, roles)?.artifact === artifact.name)
      .sort(
        (a, b) =>
          Number(b.name === artifact.name) - Number(a.name === artifact.name) || compare(a.name, b.name),
      );
    const chosen = runs[0];
    if (!chosen) return undefined;
    const why = artifact.command
      ? `runs ${artifact.image} with "${artifact.command.join(' ')}"`
      : `runs ${artifact.image}`;
    const others = runs.length > 1 ? ` (of ${runs.map((s) => s.name).join(', ')})` : '';
    found.push(`${label}: service ${chosen.name}${others}, found: it ${why}`);
    return { name: chosen.name, why: `found: ${why}` };
  };
  for (const role of ['api', 'worker'] as const) {
    const given = named[role];
    if (given) {
      names[role] = given;
      continue;
    }
    const artifact = artifactWithRole(config, role);
    const chosen = artifact ? find(artifact, role) : undefined;
    if (!chosen) continue;
    names[role] = chosen.name;
    reasons[role] = chosen.why;
  }
  const primary = artifactWithRole(config, 'web');
  for (const web of webClients(config)) {
    const isPrimary = web.name === primary?.name;
    const given = (isPrimary ? named.web : undefined) ?? options.more?.[web.name];
    if (given) {
      webs[web.name] = given;
    } else if (options.webs.includes(web.name)) {
      const chosen = find(web, web.name === 'web' ? 'web' : `web ${web.name}`);
      if (!chosen) continue;
      webs[web.name] = chosen.name;
      if (isPrimary) reasons.web = chosen.why;
    }
  }
  // The web client awaited first: the first web's service, else a web service named for a config
  // that declares none (the operator's to name).
  const web = (primary && webs[primary.name]) ?? named.web;
  if (web) names.web = web;
  return { names, why: reasons, webs, found };
}

/**
 * The web artifacts whose URL the upgrade has: each of `webUrls` by name, or the first web client
 * for the one bare `webUrl`.
 */
export function webArtifactsWithUrl(
  config: UpgradeRunContext['config'],
  urls: Pick<UpgradeRunContext, 'webUrl' | 'webUrls'>,
): string[] {
  if (urls.webUrls) return Object.keys(urls.webUrls);
  const primary = artifactWithRole(config, 'web');
  return urls.webUrl && primary && webClients(config).length > 0 ? [primary.name] : [];
}

/**
 * The artifacts whose images move: API and worker (their services found or named), every web
 * client that moves, and each job of an image of its own (a migration image beside the app's) that
 * the deployment runs, told by its command as verify tells it. A job moves in the API's phase,
 * run to completion first. Pure.
 */
export function targetArtifacts(
  config: UpgradeRunContext['config'],
  found: Pick<RoleServices, 'names' | 'webs'>,
  services: readonly DeployedService[],
): TargetArtifact[] {
  const out: TargetArtifact[] = [];
  for (const role of ['api', 'worker'] as const) {
    const artifact = artifactWithRole(config, role);
    if (found.names[role]) out.push({ artifact: artifact?.name ?? role, role });
  }
  for (const web of Object.keys(found.webs)) out.push({ artifact: web, role: 'web' });
  if (found.names.web && Object.keys(found.webs).length === 0)
    out.push({ artifact: artifactWithRole(config, 'web')?.name ?? 'web', role: 'web' });
  const moving = new Set(
    out.map((t) => imageArtifact(config, t.artifact)?.image ?? imageOfRole(config, t.role as ImageRole)),
  );
  for (const job of imageArtifacts(config)) {
    if (job.role !== 'job' || moving.has(job.image)) continue;
    const roles = roleCommands(config, job.image);
    const runs = services.some(
      (s) =>
        s.image !== undefined &&
        isImageOf(s.image, job.image) &&
        roleOfCommand(s.argv, roles)?.artifact === job.name,
    );
    if (runs) {
      out.push({ artifact: job.name, role: 'api' });
      moving.add(job.image);
    }
  }
  return out;
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
