import { inspectService, networkNames } from '../../engine/docker/swarm.ts';
import type { Step } from '../../pipeline/step.ts';
import { imageOfSpec, pinnedDigest, type RunningService, SERVICE_ROLES } from '../../upgrade/swarm-types.ts';
import { proveInStep, readApiVersion, readTaskVersions } from './service-readings.ts';
import { record, type UpgradeContext } from './upgrade-context.ts';

/**
 * Each service as it runs now: its whole spec and version index (what a rollback puts back and
 * the update is checked against), the digest its tasks run and the version they report; and
 * whether the deployment is in step before anything changes.
 */
export const readServicesStep: Step<UpgradeContext> = {
  title: 'Read the running services',
  async run(ctx, io) {
    const roles = SERVICE_ROLES.filter((role) => ctx.serviceNames[role] !== undefined);
    const [running, api, before] = await Promise.all([
      Promise.all(
        roles.map(async (role): Promise<RunningService> => {
          const inspected = await inspectService(ctx.docker, ctx.serviceNames[role]!);
          const image = imageOfSpec(inspected.spec);
          const tasks = await readTaskVersions(ctx.docker, inspected.id, role);
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
          };
        }),
      ),
      readApiVersion(ctx.apiUrl, ctx.probeTimeoutMs),
      proveInStep(ctx, undefined),
    ]);
    const apiService = running.find((s) => s.role === 'api');
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
