import { checkArtifacts } from '../../build/check-artifacts.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import { ConfigError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * Before anything is built: every selected artifact says how the chosen engine builds it, its
 * paths stay in the project, and what no build command makes exists already. All problems at
 * once as `path: message`, exit 2, nothing written.
 */
export const buildCheckArtifactsStep: Step<BuildContext> = {
  title: 'Check the artifacts',
  async run(ctx, io) {
    const images = imagesToBuild(ctx);
    const cli = cliArtifact(ctx.config);
    const problems = checkArtifacts({
      projectDir: ctx.configDir,
      // An engine asked for by --engine is checked before it is even reached; the one chosen by
      // itself is checked once known (after the build commands, before any image is built).
      engine: images.length ? ctx.requestedEngine : undefined,
      images,
      cli: cli && (ctx.only.has(cli.name) || images.some((a) => a.role === 'api')) ? cli : undefined,
      cliRequested: Boolean(cli && ctx.only.has(cli.name)),
      stage: 'before',
    });
    if (problems.length) throw invalid(problems);
    io.progress(`${images.map((a) => a.name).join(', ') || 'no image'}${cli?.build ? `, ${cli.name}` : ''}`);
  },
};

export function invalid(problems: string[]): ConfigError {
  return new ConfigError('the artifacts cannot be built as configured:', problems, {
    hint: 'fix the keys listed above (the guide: node_modules/service-release/docs/guides/your-own-service.md); nothing was built or written',
  });
}
