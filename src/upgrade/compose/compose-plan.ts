import { UsageError } from '../../errors.ts';
import { pinnedImage, type ServiceRole, type TargetImage, targetOfImage } from '../deployment-types.ts';
import { type ComposeContainer, type ComposeService, repositoryOf } from './compose-types.ts';

/** What happens to one Compose service. */
export interface ComposeMove {
  service: string;
  /** The artifact whose image it runs (or, for a one-shot of another image, the role it serves). */
  role: ServiceRole;
  /** The artifact whose image it moves to (`admin`, a job's own `seed`); undefined without a target. */
  artifact: string | undefined;
  /** Why it is in the plan: named with --service, runs an upgraded image, or runs first. */
  why: string;
  /** Runs to completion before the others start (`service_completed_successfully`). */
  oneShot: boolean;
  from: { image: string; digests: string[]; versions: string[] };
  /** The pinned target; undefined for a one-shot of an image this upgrade does not move. */
  to: { image: string; digest: string } | undefined;
  /** False when the model already pins the target and every container runs it. */
  changes: boolean;
  replicas: number;
  healthcheck: boolean;
  /** Compose replaces a container stop-first; why that matters for this service, for the plan. */
  orderReason: string;
}

/** The upgrade of a Compose project as data: `--dry-run` prints it, the apply step carries it out. */
export interface ComposePlan {
  tag: string;
  /** Run and waited for first; each must exit 0 or the upgrade fails. */
  oneShots: ComposeMove[];
  /** API, worker and every service of their images together; then web and its image's services. */
  phases: ComposeMove[][];
  /** Every service, one-shots first. */
  services: ComposeMove[];
  /** What the override file pins: service -> `repo:tag@digest`. */
  pins: Record<string, string>;
  upToDate: boolean;
}

export interface ComposePlanInput {
  tag: string;
  /** Role -> the Compose service named for it (`--service api=api`) or found for it. */
  roles: Partial<Record<ServiceRole, string>>;
  /** Roles whose service was found by image and command, not named: why, for the plan. */
  found?: Partial<Record<ServiceRole, string>>;
  /** Service -> the role its command runs (roles of one image told apart), where known. */
  serviceRoles?: Record<string, ServiceRole>;
  services: ComposeService[];
  targets: TargetImage[];
  containers: ComposeContainer[];
  /**
   * Services the config declares one-shot jobs (`role: 'job'`, told by their command): they run
   * first and must exit 0, as the ones another waits for to complete do.
   */
  jobs?: ReadonlySet<string>;
}

/**
 * Which services move, in which order. Every service whose image is an upgraded artifact's image
 * moves with it: a scheduler left on the old worker image is exactly the API/worker skew the spec
 * forbids (section 9, item 5). One-shot services a moving one waits for
 * (`service_completed_successfully`, a migration job) run first.
 */
export function planComposeUpgrade(input: ComposePlanInput): ComposePlan {
  const byName = new Map(input.services.map((s) => [s.name, s]));
  for (const [role, name] of Object.entries(input.roles)) {
    if (!byName.has(name)) {
      throw new UsageError(
        'COMPOSE_NO_SERVICE',
        `--service ${role}=${name}: the compose files have no service "${name}"`,
        {
          hint: `name one of: ${[...byName.keys()].join(', ')}`,
        },
      );
    }
  }
  // The target of a service: of its own image (each web client has its own), of the role its
  // command runs when several roles share the image (a scheduler of the API's image is a worker).
  const targetOf = (service: ComposeService): TargetImage | undefined =>
    service.image === undefined
      ? undefined
      : targetOfImage(
          input.targets.filter((t) => t.repository === repositoryOf(service.image!)),
          service.image,
          input.serviceRoles?.[service.name],
        );
  const moving = new Map<string, { target: TargetImage; why: string }>();
  for (const [role, named] of Object.entries(input.roles) as [ServiceRole, string][]) {
    const target = targetOfImage(
      input.targets.filter((t) => t.role === role),
      byName.get(named)!.image,
      role,
    );
    if (target) moving.set(named, { target, why: input.found?.[role] ?? `--service ${role}=${named}` });
  }
  for (const service of input.services) {
    const target = targetOf(service);
    if (target && !moving.has(service.name)) {
      moving.set(service.name, { target, why: `runs the ${target.artifact} image` });
    }
  }
  const oneShotNames = new Set<string>();
  const addOneShots = (name: string) => {
    for (const dep of byName.get(name)?.dependsOn ?? []) {
      if (dep.condition === 'service_completed_successfully' && !oneShotNames.has(dep.service)) {
        oneShotNames.add(dep.service);
        addOneShots(dep.service);
      }
    }
  };
  for (const name of moving.keys()) addOneShots(name);
  for (const name of input.jobs ?? []) {
    if (!moving.has(name) || oneShotNames.has(name)) continue;
    oneShotNames.add(name);
    addOneShots(name);
  }

  const move = (
    service: ComposeService,
    target: TargetImage | undefined,
    role: ServiceRole,
    why: string,
    oneShot: boolean,
  ): ComposeMove => {
    const containers = input.containers.filter((c) => c.service === service.name && !c.oneOff);
    const pinned = target ? pinnedImage(target) : undefined;
    const onTarget = containers.length > 0 && containers.every((c) => c.digest === target?.digest);
    return {
      service: service.name,
      role,
      artifact: target?.artifact,
      why,
      oneShot,
      from: {
        image: service.image ?? '',
        digests: [...new Set(containers.map((c) => c.digest ?? '?'))],
        versions: [...new Set(containers.map((c) => c.version ?? '?'))],
      },
      to: target && pinned ? { image: pinned, digest: target.digest } : undefined,
      changes: oneShot
        ? pinned !== undefined && service.image !== pinned
        : service.image !== pinned || !onTarget,
      replicas: service.replicas,
      healthcheck: service.healthcheck,
      orderReason: service.containerName
        ? `stop-first: container_name "${service.containerName}" is fixed, the old container goes before the new one takes the name`
        : 'stop-first: Compose stops the old container, then starts the new one',
    };
  };
  const oneShots = [...oneShotNames].map((name) => {
    const service = byName.get(name)!;
    const target = targetOf(service);
    const dependant = [...moving.entries()].find(([n]) =>
      byName.get(n)?.dependsOn.some((d) => d.service === name),
    );
    const why = dependant
      ? `${dependant[0]} waits for it to complete`
      : input.jobs?.has(name)
        ? 'a job of the release: runs to completion before the others'
        : 'a moving service waits for it to complete';
    return move(service, target, target?.role ?? dependant?.[1].target.role ?? 'api', why, true);
  });
  const regular = [...moving.entries()]
    .filter(([name]) => !oneShotNames.has(name))
    .map(([name, m]) => move(byName.get(name)!, m.target, m.target.role, m.why, false));
  const rank = (m: ComposeMove) =>
    (input.roles[m.role] === m.service ? 0 : 1) + (m.role === 'api' ? 0 : m.role === 'worker' ? 2 : 4);
  const phases = [
    regular.filter((m) => m.role !== 'web').sort((a, b) => rank(a) - rank(b)),
    regular.filter((m) => m.role === 'web').sort((a, b) => rank(a) - rank(b)),
  ].filter((phase) => phase.length > 0);
  const services = [...oneShots, ...phases.flat()];
  const pins = Object.fromEntries(services.flatMap((m) => (m.to ? [[m.service, m.to.image]] : [])));
  return { tag: input.tag, oneShots, phases, services, pins, upToDate: services.every((m) => !m.changes) };
}
