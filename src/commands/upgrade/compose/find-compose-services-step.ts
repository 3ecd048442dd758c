import { existsSync } from 'node:fs';
import { composeModel } from '../../../deployment-engines/compose/compose-cli.ts';
import type { Step } from '../../../pipeline/step.ts';
import { commandWords } from '../../../text/command-words.ts';
import {
  type DeployedService,
  findRoleServices,
  requireApiAndWorker,
  rolesOfServices,
  targetArtifacts,
  webArtifactsWithUrl,
} from '../role-services.ts';
import { record } from '../upgrade-context.ts';
import { type ComposeUpgradeContext, composeFiles } from './compose-context.ts';

/**
 * The service of each role in the project, as verify finds them (by image and the role's
 * command, `--service` only overriding): read from the model Compose resolves (our current
 * override included), which the next step reads again from here.
 */
export const findComposeServicesStep: Step<ComposeUpgradeContext> = {
  title: 'Find the service of each role',
  async run(ctx, io) {
    const withOverride = existsSync(ctx.overridePath);
    ctx.modelBefore = await composeModel(
      ctx.cli,
      { files: composeFiles(ctx, withOverride), name: ctx.project.name, dir: ctx.project.dir },
      ctx.env,
    );
    const services = deployedServices(ctx.modelBefore);
    const roleServices = findRoleServices(ctx.config, services, ctx.serviceNames, {
      webs: webArtifactsWithUrl(ctx.config, ctx),
      ...(ctx.moreServices ? { more: ctx.moreServices } : {}),
    });
    const { names, why, found } = roleServices;
    requireApiAndWorker(names, services, ctx.config);
    ctx.serviceNames = names;
    ctx.webServices = roleServices.webs;
    ctx.targetArtifacts = targetArtifacts(ctx.config, roleServices, services);
    ctx.foundWhy = why;
    ctx.serviceRoles = rolesOfServices(ctx.config, services);
    for (const line of found) record(ctx, line);
    io.progress(
      Object.entries(names)
        .map(([role, name]) => `${role} ${name}`)
        .join(', '),
    );
  },
};

/** Each service of a resolved model with its image and what it runs (entrypoint, then command). */
export function deployedServices(model: unknown): DeployedService[] {
  const services = (model as { services?: Record<string, unknown> } | null)?.services;
  if (!services || typeof services !== 'object') return [];
  return Object.entries(services).map(([name, raw]) => {
    const s = (raw ?? {}) as { image?: unknown; entrypoint?: unknown; command?: unknown };
    const words = (v: unknown) => (typeof v === 'string' || Array.isArray(v) ? commandWords(v) : []);
    return {
      name,
      image: typeof s.image === 'string' ? s.image : undefined,
      argv: [...words(s.entrypoint), ...words(s.command)],
    };
  });
}
