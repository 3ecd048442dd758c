import { artifactInputs, toolkitOutputs } from '../../build/artifact-inputs.ts';
import { readRepoInfo } from '../../git/repo-info.ts';
import { untrackedInputs } from '../../git/untracked-inputs.ts';
import type { Step } from '../../pipeline/step.ts';
import { printable } from '../../text/printable.ts';
import { resolveVersion } from '../../version-source/resolve-version.ts';
import type { StampContext } from './stamp-context.ts';

/** SERVICE_VERSION, else git describe in the project (--cwd), else unknown; plus the repo's state and untracked inputs. */
export const resolveVersionStep: Step<StampContext> = {
  title: 'Resolve the version',
  async run(ctx, io) {
    // Untracked files where the images take their files from make the tree dirty (as goreleaser
    // counts them), asked alongside the repository's state.
    const [repo, untracked] = await Promise.all([
      ctx.repoRead ?? readRepoInfo(ctx.cwd),
      untrackedInputs(ctx.configDir, artifactInputs(ctx.config), toolkitOutputs(ctx.config)),
    ]);
    // The description readRepoInfo already asked git for: one git process fewer at start-up.
    const resolved = await resolveVersion({
      env: ctx.env,
      cwd: ctx.cwd,
      describe: async () => repo.describe ?? undefined,
    });
    ctx.resolved = resolved;
    ctx.repo = repo;
    ctx.untracked = untracked;
    io.progress(`${printable(resolved.version)} (from ${resolved.source})`);
  },
};
