import type { Step } from '../../../pipeline/step.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';
import { readContainers } from './compose-wait.ts';

/** What every container of the project runs at the end: `--json` carries it, a failure shows it. */
export const readComposeAfterStep: Step<ComposeUpgradeContext> = {
  title: 'Read the project after',
  skip: (ctx) => (ctx.dryRun ? 'dry run' : false),
  async run(ctx) {
    ctx.containersAfter = await readContainers(ctx);
  },
};
