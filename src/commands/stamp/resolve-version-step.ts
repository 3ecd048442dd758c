import { readRepoInfo } from '../../git/repo-info.ts';
import type { Step } from '../../pipeline/step.ts';
import { printable } from '../../shared/printable.ts';
import { resolveVersion } from '../../shared/resolve-version.ts';
import type { StampContext } from './stamp-context.ts';

/** SERVICE_VERSION, else git describe in the project (--cwd), else unknown; plus the repo's state. */
export const resolveVersionStep: Step<StampContext> = {
  title: 'Resolve the version',
  async run(ctx, io) {
    const repo = await readRepoInfo(ctx.cwd);
    // The description readRepoInfo already asked git for: one git process fewer at start-up.
    const resolved = await resolveVersion({
      env: ctx.env,
      cwd: ctx.cwd,
      describe: async () => repo.describe ?? undefined,
    });
    ctx.resolved = resolved;
    ctx.repo = repo;
    io.progress(`${printable(resolved.version)} (from ${resolved.source})`);
  },
};
