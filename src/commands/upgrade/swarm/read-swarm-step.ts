import { imageOfRole } from '../../../config/artifacts.ts';
import { roleCommands, roleOfCommand } from '../../../config/role-of-command.ts';
import { versionReadOrder } from '../../../config/version-variables.ts';
import { inspectService, listServiceSpecs, networkNames } from '../../../deployment-engines/swarm/swarm.ts';
import { UsageError } from '../../../errors.ts';
import type { Step } from '../../../pipeline/step.ts';
import { isImageOf } from '../../../registry/image-ref.ts';
import { pinnedDigest, SERVICE_ROLES, type ServiceRole } from '../../../upgrade/deployment-types.ts';
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
 * The services the upgrade moves: the one named for each role, the roles of a shared image named
 * by their artifact (`moreServices`), and every other service that runs one of the roles' images
 * (a scheduler nobody named): one image moves everywhere it runs, in its role's phase. A found
 * service takes the role its command runs (roleOfCommand), else the worker's.
 */
async function servicesToMove(
  ctx: SwarmUpgradeContext,
): Promise<{ role: ServiceRole; name: string; oneShot?: boolean }[]> {
  const roles = SERVICE_ROLES.filter((role) => ctx.serviceNames[role] !== undefined);
  const named = [
    ...roles.map((role) => ({ role, name: ctx.serviceNames[role]! })),
    ...Object.entries(ctx.moreServices ?? {}).map(([artifact, name]) => ({
      ...artifactRole(ctx, artifact),
      name,
    })),
  ];
  const taken = new Set(named.map((s) => s.name));
  const found = (await listServiceSpecs(ctx.docker)).flatMap(({ name, spec }) => {
    if (taken.has(name)) return [];
    const image = imageOfSpec(spec);
    const repository = roles.map((r) => imageOfRole(ctx.config, r)).find((repo) => isImageOf(image, repo));
    if (!repository) return [];
    const role = roleOfCommand(argvOf(spec), roleCommands(ctx.config, repository))?.role ?? 'worker';
    // A job moves with the role whose image it runs (a migration of the API's image), first.
    if (role === 'job') {
      const of = roles.find((r) => isImageOf(image, imageOfRole(ctx.config, r)));
      return of ? [{ role: of, name, oneShot: true }] : [];
    }
    // Only a role this upgrade has a target for: the image of its role is the one that moves.
    const moving = roles.includes(role) && isImageOf(image, imageOfRole(ctx.config, role)) ? role : undefined;
    return moving ? [{ role: moving, name }] : [];
  });
  return [...named, ...found];
}

function artifactRole(ctx: SwarmUpgradeContext, artifact: string): { role: ServiceRole; oneShot?: boolean } {
  const found = ctx.config.artifacts[artifact];
  if (found?.kind !== 'image' || !found.role) return { role: 'worker' };
  if (found.role === 'job') {
    const of = SERVICE_ROLES.find((r) => found.image === imageOfRole(ctx.config, r));
    return { role: of ?? 'api', oneShot: true };
  }
  // Each role moves to its own image's target: a second web client (an admin dashboard) is
  // another image, which this upgrade has no target for. Refused before anything changes, never
  // moved to the first web client's digest.
  if (found.role === 'web' && found.image !== imageOfRole(ctx.config, 'web'))
    throw new UsageError(
      'UPGRADE_SECOND_WEB',
      `artifacts.${artifact} is a web client of its own image (${found.image}), not ${imageOfRole(ctx.config, 'web')}: release upgrade moves one web client`,
      {
        hint: `leave ${artifact} out of --service and the deployment's services, and roll its image out on its own`,
      },
    );
  return { role: found.role };
}

/** A service's command as its spec gives it (Compose's `command:` is Args); the image's is unknown here. */
export function argvOf(spec: ServiceSpec): string[] {
  const container = spec.TaskTemplate?.ContainerSpec as { Command?: string[]; Args?: string[] } | undefined;
  return [...(container?.Command ?? []), ...(container?.Args ?? [])];
}
