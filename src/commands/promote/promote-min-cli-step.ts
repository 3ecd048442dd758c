import { checkOwnMinimum, noOwnMinimum, ownMinimum } from '../../config/own-minimum.ts';
import type { Step } from '../../pipeline/step.ts';
import type { PromoteContext } from './promote-context.ts';

/** The CLI of the promoted version must not be below the min_cli_version its own API serves. */
export const promoteMinCliStep: Step<PromoteContext> = {
  title: "Check the CLI against its own API's minimum",
  skip: (ctx) => noOwnMinimum(ctx.config),
  async run(ctx, io) {
    checkOwnMinimum(ctx.version!, ctx.config, `promote ${ctx.version} to ${ctx.channel}`);
    io.progress(`${ctx.version} is not below ${ownMinimum(ctx.config)!.min}`);
  },
};
