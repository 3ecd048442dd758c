import { pinnedImage, type ServiceRole, type TargetImage, targetOfImage } from '../deployment-types.ts';
import {
  imageOfSpec,
  type RunningService,
  type ServiceSpec,
  SWARM_DEFAULT_UPDATE_CONFIG,
} from './swarm-types.ts';

export type UpdateOrder = 'start-first' | 'stop-first';

/** What happens to one service. */
export interface PlannedService {
  role: ServiceRole;
  /** The artifact whose image it moves to (each web client its own, a job's own image). */
  artifact: string;
  name: string;
  from: { image: string; digest: string | undefined; version: string | undefined; versionSource: string };
  to: { image: string; digest: string; tag: string };
  /** False when the service already runs exactly the target (pinned to its digest). */
  changes: boolean;
  order: UpdateOrder;
  orderReason: string;
  /** A one-shot job: its new run must complete (exit 0) before API and worker move. */
  oneShot?: boolean;
}

/**
 * The upgrade as data: the phases in order (the jobs, then API and worker together, then web),
 * each a list of services updated at once. `--dry-run` prints it; the apply step carries it out.
 */
export interface SwarmPlan {
  tag: string;
  phases: PlannedService[][];
  /** Every service, in phase order. */
  services: PlannedService[];
  /** Nothing to change: every service already runs the target digest. */
  upToDate: boolean;
}

/**
 * Which update order a service allows. Start-first (the new task runs before the old one stops)
 * means no gap, but two tasks of one service then run side by side on a node: a service on the
 * host network or publishing a port in host mode would have both bind the same port, and the new
 * task would fail. Those are updated stop-first.
 */
export function updateOrder(spec: ServiceSpec, networks: string[]): { order: UpdateOrder; reason: string } {
  if (networks.includes('host')) {
    return { order: 'stop-first', reason: 'host network: two tasks would bind the same port' };
  }
  const hostPorts = (spec.EndpointSpec?.Ports ?? []).filter((p) => p.PublishMode === 'host');
  if (hostPorts.length > 0) {
    return {
      order: 'stop-first',
      reason: `publishes port ${hostPorts.map((p) => p.PublishedPort).join(', ')} in host mode`,
    };
  }
  return { order: 'start-first', reason: 'new task starts before the old one stops' };
}

/**
 * The plan: for each role the running service and its target, the update order it allows, and
 * whether it changes at all. API and worker are one phase (they move together, spec 9.5); web
 * follows once they are proved.
 */
export function planSwarmUpgrade(tag: string, running: RunningService[], targets: TargetImage[]): SwarmPlan {
  const planned = running.map((service): PlannedService => {
    // The target of its own image (each web client, a job's own image), of its role where several
    // roles share one image; a service named for a role whose image is written otherwise: the role's.
    const target = targetOfImage(targets, service.image, service.oneShot ? undefined : service.role);
    if (!target) throw new Error(`no target image for ${service.role} ${service.name}`);
    const image = pinnedImage(target);
    const { order, reason } = updateOrder(service.spec, service.networks);
    return {
      role: service.role,
      artifact: target.artifact,
      name: service.name,
      from: {
        image: service.image,
        digest: service.digest,
        version: service.version,
        versionSource: service.versionSource,
      },
      to: { image, digest: target.digest, tag: target.tag },
      changes: imageOfSpec(service.spec) !== image,
      ...(service.oneShot
        ? {
            oneShot: true,
            order: 'stop-first' as const,
            orderReason: 'a one-shot job: runs once to completion',
          }
        : { order, orderReason: reason }),
    };
  });
  const byRole = (roles: ServiceRole[]) =>
    planned
      .filter((p) => !p.oneShot && roles.includes(p.role))
      .sort((a, b) => roleRank(a.role) - roleRank(b.role));
  // Jobs first, as Compose runs a service_completed_successfully dependency: a migration the new
  // API needs must have completed before the API starts.
  const phases = [planned.filter((p) => p.oneShot), byRole(['api', 'worker']), byRole(['web'])].filter(
    (phase) => phase.length > 0,
  );
  return { tag, phases, services: phases.flat(), upToDate: planned.every((p) => !p.changes) };
}

/**
 * The spec a service is updated to: its current spec, whole, with only the image pinned to the
 * target digest, the update order the service allows, and Swarm's own failure action set to
 * pause (a per-service automatic rollback would race the stack-wide one this command runs).
 * A service with no update config of its own keeps Swarm's defaults (one task at a time).
 */
export function nextSpec(current: ServiceSpec, planned: PlannedService): ServiceSpec {
  const spec = structuredClone(current);
  const template = spec.TaskTemplate ?? {};
  spec.TaskTemplate = template;
  template.ContainerSpec = { ...(template.ContainerSpec ?? {}), Image: planned.to.image };
  // A job runs once per spec written (Swarm refuses an update config on a job service): the new
  // image alone starts its new run.
  if (planned.oneShot) return spec;
  spec.UpdateConfig = {
    ...(spec.UpdateConfig ?? SWARM_DEFAULT_UPDATE_CONFIG),
    Order: planned.order,
    FailureAction: 'pause',
  };
  return spec;
}

/**
 * The spec with Swarm's force counter moved on: written back, it makes Swarm replace every task
 * of the service, one slot at a time under its update config, even though nothing else changed
 * (what `docker service update --force` writes).
 */
export function forcedPass(current: ServiceSpec): ServiceSpec {
  const spec = structuredClone(current);
  const template = spec.TaskTemplate ?? {};
  spec.TaskTemplate = template;
  template.ForceUpdate = (typeof template.ForceUpdate === 'number' ? template.ForceUpdate : 0) + 1;
  return spec;
}

function roleRank(role: ServiceRole): number {
  return role === 'api' ? 0 : role === 'worker' ? 1 : 2;
}

/**
 * Which services a failure puts back: every one this run sent an update to, in every phase so far
 * (a failing web puts API and worker back too). Never only the one that failed: API and worker
 * on different tags is the state the spec forbids (section 9, item 5).
 */
export function servicesToRestore(plan: SwarmPlan, touched: ReadonlySet<string>): PlannedService[] {
  // By service name: one image may run several services of one role (a worker and a scheduler).
  return plan.services.filter((s) => touched.has(s.name));
}
