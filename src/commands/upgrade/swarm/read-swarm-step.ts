import { imageOfRole } from '../../../config/artifacts.ts';
import { roleCommands, roleOfCommand } from '../../../config/role-of-command.ts';
import { versionReadOrder } from '../../../config/version-variables.ts';
import { inspectService, listServiceSpecs, networkNames } from '../../../deployment-engines/swarm/swarm.ts';
import type { Step } from '../../../pipeline/step.ts';
import { isImageOf } from '../../../registry/image-ref.ts';
import {
  pinnedDigest,
  SERVICE_ROLES,
  type ServiceRole,
  type TargetImage,
  targetOfImage,
} from '../../../upgrade/deployment-types.ts';
import { imageOfSpec, type RunningService, type ServiceSpec } from '../../../upgrade/swarm/swarm-types.ts';
import { readApiVersion } from '../read-api-version.ts';
import { record } from '../upgrade-context.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';
import { proveSwarmInStep, readTaskVersions } from './swarm-service-readings.ts';

/**
 * Each service as it runs now: its whole spec and version index (what a rollback puts back and
 * the update is checked against), the digest its tasks run and the version they report; and
 * whether the deployment is in step before anything changes.
 */
export const readSwarmStep: Step<SwarmUpgradeContext> = {
  title: 'Read the running services',
  async run(ctx, io) {
    const services = await servicesToMove(ctx);
    const [running, api, before] = await Promise.all([
      Promise.all(
        services.map(async ({ role, name, oneShot }): Promise<RunningService> => {
          const inspected = await inspectService(ctx.docker, name);
          const image = imageOfSpec(inspected.spec);
          const tasks = await readTaskVersions(
            ctx.docker,
            inspected.id,
            role,
            undefined,
            versionReadOrder(ctx.config),
          );
          return {
            role,
            name: inspected.name,
            id: inspected.id,
            versionIndex: inspected.versionIndex,
            spec: inspected.spec,
            image,
            digest: pinnedDigest(image) ?? tasks.digests[0],
            version: role === 'api' ? undefined : tasks.versions[0],
            versionSource: role === 'api' ? `${ctx.apiUrl}/api/version` : tasks.source,
            networks: await networkNames(
              ctx.docker,
              (inspected.spec.TaskTemplate?.Networks ?? []).map((n) => n.Target ?? ''),
            ),
            ...(oneShot ? { oneShot } : {}),
          };
        }),
      ),
      readApiVersion(ctx.apiUrl, ctx.probeTimeoutMs),
      proveSwarmInStep(ctx, undefined),
    ]);
    const apiService =
      running.find((s) => s.name === ctx.serviceNames.api) ?? running.find((s) => s.role === 'api');
    if (apiService) apiService.version = api.version;
    if (api.minCliVersion) ctx.currentMinCli = api.minCliVersion;
    ctx.running = running;
    ctx.inStepBefore = before.inStep;
    record(
      ctx,
      `running: ${running.map((s) => `${s.role} ${s.name} ${s.version ?? '?'}`).join(', ')}; ${before.inStep ? 'in step' : 'not in step'}`,
    );
    io.progress(running.map((s) => `${s.role} ${s.version ?? '?'}`).join(', '));
  },
};

/**
 * The services the upgrade moves: the one named for each role, every web client's (each its own
 * image), the roles of a shared image named by their artifact (`moreServices`), and every other
 * service that runs one of the target images (a scheduler nobody named, a job of an image of its
 * own): one image moves everywhere it runs, in its target's phase. A found service takes the role
 * its command runs (roleOfCommand), else its target's; a job runs first, in a phase of its own.
 */
async function servicesToMove(
  ctx: SwarmUpgradeContext,
): Promise<{ role: ServiceRole; name: string; oneShot?: boolean }[]> {
  const targets = ctx.targets ?? [];
  const roles = SERVICE_ROLES.filter((role) => ctx.serviceNames[role] !== undefined);
  const named = [
    ...roles.map((role) => ({ role, name: ctx.serviceNames[role]! })),
    ...Object.entries(ctx.webServices ?? {}).map(([, name]) => ({ role: 'web' as const, name })),
    ...Object.entries(ctx.moreServices ?? {}).map(([artifact, name]) => ({
      ...artifactRole(ctx, artifact),
      name,
    })),
  ];
  const taken = new Set<string>();
  const unique = named.filter((s) => !taken.has(s.name) && taken.add(s.name));
  const found = (await listServiceSpecs(ctx.docker)).flatMap(({ name, spec }) => {
    if (taken.has(name)) return [];
    const image = imageOfSpec(spec);
    const target = targetOfImage(targets, image);
    if (!target || !isImageOf(image, imageOfTarget(ctx, target))) return [];
    const repository = imageOfTarget(ctx, target);
    const role = roleOfCommand(argvOf(spec), roleCommands(ctx.config, repository))?.role ?? 'worker';
    // A job moves with the image it runs (a migration of the API's image, or its own), first.
    if (role === 'job') return [{ role: target.role, name, oneShot: true }];
    // Only a role this upgrade has a target of this image for: that image is the one that moves.
    const moving = targets.some((t) => t.role === role && t.repository === target.repository)
      ? (role as ServiceRole)
      : undefined;
    return moving ? [{ role: moving, name }] : [];
  });
  return [...unique, ...found];
}

/** The image (as the config names it) of a target's artifact. */
function imageOfTarget(ctx: SwarmUpgradeContext, target: TargetImage): string {
  const artifact = ctx.config.artifacts[target.artifact];
  return artifact?.kind === 'image' ? artifact.image : imageOfRole(ctx.config, target.role);
}

function artifactRole(ctx: SwarmUpgradeContext, artifact: string): { role: ServiceRole; oneShot?: boolean } {
  const found = ctx.config.artifacts[artifact];
  if (found?.kind !== 'image' || !found.role) return { role: 'worker' };
  if (found.role === 'job') {
    const of = SERVICE_ROLES.find((r) => found.image === imageOfRole(ctx.config, r));
    return { role: of ?? 'api', oneShot: true };
  }
  // A web client moves to its own image's target (planSwarmUpgrade takes the target by image).
  return { role: found.role };
}

/** A service's command as its spec gives it (Compose's `command:` is Args); the image's is unknown here. */
export function argvOf(spec: ServiceSpec): string[] {
  const container = spec.TaskTemplate?.ContainerSpec as { Command?: string[]; Args?: string[] } | undefined;
  return [...(container?.Command ?? []), ...(container?.Args ?? [])];
}
