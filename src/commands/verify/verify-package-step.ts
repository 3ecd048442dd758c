import { npmClient } from '../../cli-package/npm-client.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import type { Step } from '../../pipeline/step.ts';
import { checkCliPackage } from '../../verify/checks/check-cli-package.ts';
import { probeCliPackage } from '../../verify/probes/cli-package.ts';
import { buildReport } from '../../verify/report.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * `--registry` with `artifacts.cli.publish`: `service-cli@<tag>` must be in the npm registry, and
 * for a release, what `latest` names. Its findings join the report's.
 */
export const verifyPackageStep: Step<VerifyContext> = {
  title: 'Check the CLI package in the npm registry',
  skip: (ctx) =>
    !ctx.store
      ? 'pass --registry to check the registries'
      : !cliArtifact(ctx.config)?.publish
        ? 'artifacts.cli.publish is off'
        : !ctx.outcome?.reference
          ? 'no readable tag to look up'
          : false,
  async run(ctx, io) {
    const outcome = ctx.outcome!;
    const reading = await probeCliPackage({
      npm: npmClient({
        configDir: ctx.configDir,
        env: ctx.env,
        timeoutMs: Math.max(ctx.options.timeoutMs, 30_000),
        fetchRetries: 0,
      }),
      name: cliArtifact(ctx.config)!.package,
      tag: imageTagOf(parseVersion(outcome.reference!.tag)),
    });
    outcome.findings.push(...checkCliPackage(reading));
    const ms = Math.round(performance.now() - ctx.startedAt);
    ctx.report = {
      ...buildReport(ctx.target, ctx.probed!, outcome, ms, ctx.registry, ctx.signatures),
      cliPackage: reading,
    };
    io.progress(
      `${reading.package}@${reading.version}: ${reading.exists ? 'published' : 'missing'}, latest ${reading.distTags['latest'] ?? '(none)'}`,
    );
  },
};
