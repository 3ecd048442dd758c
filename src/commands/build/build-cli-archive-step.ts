import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildCommandEnv, runBuildCommand } from '../../build/run-build-command.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import type { Step } from '../../pipeline/step.ts';
import { invalid } from './build-check-artifacts-step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * The CLI archive, in any language: the CLI's build command runs (no shell, in the project,
 * SERVICE_VERSION set, and the project's install command for the gate), and the archive it
 * names must be one it wrote; its SHA-256 and size are recorded. The api image serves it.
 */
export const buildCliArchiveStep: Step<BuildContext> = {
  title: 'Build the CLI archive',
  skip(ctx) {
    const cli = cliArtifact(ctx.config);
    if (!cli) return 'no CLI artifact';
    if (!ctx.only.has(cli.name) && !imagesToBuild(ctx).some((a) => a.role === 'api'))
      return 'not selected (--only)';
    return cli.build ? false : `artifacts.${cli.name} has no build command`;
  },
  async run(ctx, io) {
    const cli = cliArtifact(ctx.config)!;
    const { command, archive } = cli.build!;
    const path = resolve(ctx.configDir, archive);
    const before = await stat(path).catch(() => undefined);
    await runBuildCommand({
      at: `artifacts.${cli.name}.build.command`,
      command,
      cwd: ctx.configDir,
      env: buildCommandEnv(ctx.env, ctx.tag!, { SERVICE_CLI_INSTALL_COMMAND: cli.installCommand }),
      progress: (line) => io.progress(line),
    });
    const after = await stat(path).catch(() => undefined);
    const unchanged =
      before &&
      after &&
      before.ino === after.ino &&
      before.mtimeMs === after.mtimeMs &&
      before.size === after.size;
    if (!after?.isFile() || unchanged) {
      throw invalid([
        `artifacts.${cli.name}.build.archive: the command did not ${after ? 'write' : 'produce'} "${archive}"`,
      ]);
    }
    const bytes = await readFile(path);
    ctx.cli = { path, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    io.progress(`${archive} sha256 ${ctx.cli.sha256.slice(0, 12)}`);
  },
};
