import { readFile } from 'node:fs/promises';
import { versionReadOrder } from '../../../config/version-variables.ts';
import { composeModel } from '../../../deployment-engines/compose/compose-cli.ts';
import { readComposeContainers } from '../../../deployment-engines/compose/compose-containers.ts';
import type { Step } from '../../../pipeline/step.ts';
import { readYamlValue } from '../../../text/parse-yaml.ts';
import { composeServices } from '../../../upgrade/compose/compose-model.ts';
import { readApiVersion } from '../read-api-version.ts';
import { record } from '../upgrade-context.ts';
import { type ComposeUpgradeContext, composeFiles } from './compose-context.ts';
import { proveComposeInStep } from './compose-proof.ts';

/**
 * The project as it runs now: the model Compose resolves from the user's files and our current
 * override (variables substituted), every container of the project from the engine, the API's
 * version, and whether the deployment is in step before anything changes.
 */
export const readComposeStep: Step<ComposeUpgradeContext> = {
  title: 'Read the Compose project',
  async run(ctx, io) {
    ctx.previousOverride = await readFile(ctx.overridePath, 'utf8').catch(() => undefined);
    const hasOverride = ctx.previousOverride !== undefined;
    const first = await readFile(ctx.project.files[0]!, 'utf8');
    const read = readYamlValue(first);
    const version = 'value' in read ? (read.value as { version?: unknown } | null)?.version : undefined;
    if (version !== undefined) ctx.fileVersion = String(version);
    // Every web client's service reads its version as a web client does (SERVICE_CLIENT_VERSION).
    const webServices = new Set([
      ...Object.values(ctx.webServices ?? {}),
      ...(ctx.serviceNames.web ? [ctx.serviceNames.web] : []),
    ]);
    const [model, containers, api, before] = await Promise.all([
      ctx.modelBefore ??
        composeModel(
          ctx.cli,
          { files: composeFiles(ctx, hasOverride), name: ctx.project.name, dir: ctx.project.dir },
          ctx.env,
        ),
      readComposeContainers(ctx.docker, ctx.project.name, webServices, versionReadOrder(ctx.config)),
      readApiVersion(ctx.apiUrl, ctx.probeTimeoutMs),
      proveComposeInStep(ctx, undefined),
    ]);
    ctx.services = composeServices(model);
    ctx.containersBefore = containers;
    if (api.version) ctx.fromTag = api.version;
    if (api.minCliVersion) ctx.currentMinCli = api.minCliVersion;
    ctx.inStepBefore = before.inStep;
    const serving = containers.filter((c) => c.state === 'running').length;
    record(
      ctx,
      `project ${ctx.project.name} (${ctx.cli.name} ${ctx.cli.version}): ${ctx.services.length} service(s), ${containers.length} container(s), ${serving} running; API ${api.version ?? api.error ?? '?'}; ${before.inStep ? 'in step' : 'not in step'}${hasOverride ? `; current override ${ctx.overridePath}` : ''}`,
    );
    io.progress(`${ctx.project.name}: API ${api.version ?? '?'}, ${serving} container(s) running`);
  },
};
