import { cliArtifact } from '../../config/artifacts.ts';
import { checkOwnMinimum, noOwnMinimum, ownMinimum } from '../../config/own-minimum.ts';
import type { Step } from '../../pipeline/step.ts';
import type { BuildContext } from './build-context.ts';

/** The CLI built (alone, or inside the api image) must not be below its own API's minimum. */
export const buildMinCliStep: Step<BuildContext> = {
  title: "Check the CLI against its own API's minimum",
  skip: (ctx) =>
    cliArtifact(ctx.config)?.version === 'own'
      ? 'the CLI keeps its own version line: its archive is checked once built'
      : ctx.only.has('cli') || ctx.only.has('api')
        ? noOwnMinimum(ctx.config)
        : 'no CLI is built (--only without cli or api)',
  async run(ctx, io) {
    checkOwnMinimum(ctx.tag!, ctx.config, `build ${ctx.tag}`);
    io.progress(`${ctx.tag} is not below ${ownMinimum(ctx.config)!.min}`);
  },
};
