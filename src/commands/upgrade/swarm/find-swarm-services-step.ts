import { listServiceSpecs } from '../../../deployment-engines/swarm/swarm.ts';
import type { Step } from '../../../pipeline/step.ts';
import { imageOfSpec } from '../../../upgrade/swarm/swarm-types.ts';
import {
  findRoleServices,
  requireApiAndWorker,
  targetArtifacts,
  webArtifactsWithUrl,
} from '../role-services.ts';
import { record } from '../upgrade-context.ts';
import { argvOf } from './read-swarm-step.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

/**
 * The service of each role in the swarm, as verify finds them (by image and the role's command,
 * `--service` only overriding).
 */
export const findSwarmServicesStep: Step<SwarmUpgradeContext> = {
  title: 'Find the service of each role',
  async run(ctx, io) {
    const services = (await listServiceSpecs(ctx.docker)).map(({ name, spec }) => ({
      name,
      image: imageOfSpec(spec),
      argv: argvOf(spec),
    }));
    const roleServices = findRoleServices(ctx.config, services, ctx.serviceNames, {
      webs: webArtifactsWithUrl(ctx.config, ctx),
      ...(ctx.moreServices ? { more: ctx.moreServices } : {}),
    });
    const { names, found } = roleServices;
    requireApiAndWorker(names, services, ctx.config);
    ctx.serviceNames = names;
    ctx.webServices = roleServices.webs;
    ctx.targetArtifacts = targetArtifacts(ctx.config, roleServices, services);
    for (const line of found) record(ctx, line);
    io.progress(
      Object.entries(names)
        .map(([role, name]) => `${role} ${name}`)
        .join(', '),
    );
  },
};
