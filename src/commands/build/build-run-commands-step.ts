import { checkArtifacts } from '../../build/check-artifacts.ts';
import { buildCommandEnv, runBuildCommand } from '../../build/run-build-command.ts';
import type { Step } from '../../pipeline/step.ts';
import { invalid } from './build-check-artifacts-step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * Each image's build command (a bundler, a client build), in order, in the project's folder
 * with the version in its environment (the CLI's runs beside them: build-pipeline.ts); then
 * everything the recipes name must exist.
 */
export const buildRunCommandsStep: Step<BuildContext> = {
  title: 'Run the build commands',
  writes: true,
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only)' : false),
  async run(ctx, io) {
    const images = imagesToBuild(ctx);
    // One command named by several images (a monorepo's `pnpm build`) runs once: same argv, same
    // folder, same environment, so a second run could only redo the first's work.
    const ran = new Map<string, string>();
    for (const artifact of images) {
      if (!artifact.build) continue;
      const same = ran.get(JSON.stringify(artifact.build.command));
      if (same) {
        io.progress(`${artifact.name}: the same command as ${same}, run once`);
        continue;
      }
      ran.set(JSON.stringify(artifact.build.command), artifact.name);
      io.progress(`${artifact.name}: ${artifact.build.command.join(' ')}`);
      await ctx.timer.time(artifact.name, 'build command', () =>
        runBuildCommand({
          at: `artifacts.${artifact.name}.build.command`,
          command: artifact.build!.command,
          cwd: ctx.configDir,
          env: buildCommandEnv(ctx.env, ctx.tag!, {}, ctx.config),
          progress: (line) => io.progress(`${artifact.name}: ${line}`),
        }),
      );
    }
    const problems = checkArtifacts({
      projectDir: ctx.configDir,
      engine: ctx.engine!.name,
      images,
      cli: undefined,
      cliRequested: false,
      stage: 'after',
    });
    if (problems.length) throw invalid(problems);
  },
};
