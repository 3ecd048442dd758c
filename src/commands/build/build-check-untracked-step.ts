import { artifactInputs, toolkitOutputs } from '../../build/artifact-inputs.ts';
import { channelOf } from '../../channels/channel-of.ts';
import { RuleError } from '../../errors.ts';
import { untrackedInputs } from '../../git/untracked-inputs.ts';
import type { Step } from '../../pipeline/step.ts';
import { untrackedLine } from '../../stamp/stamp-plan.ts';
import { parseVersion } from '../../version/parse.ts';
import type { BuildContext } from './build-context.ts';

/**
 * An rc or a release must be rebuildable from its tag: an untracked file where an image takes its
 * files from (added after the stamp, say) would ship in a layer the tag does not have. Refused
 * before anything is built, naming the files; dev builds say so at stamp time (`-dirty`).
 */
export const buildCheckUntrackedStep: Step<BuildContext> = {
  title: 'Check the inputs hold no untracked file',
  skip: (ctx) =>
    channelOf(parseVersion(ctx.tag!)) === 'dev'
      ? `${ctx.tag} is a dev version: a dirty tree is allowed`
      : false,
  async run(ctx, io) {
    const untracked = await untrackedInputs(
      ctx.configDir,
      artifactInputs(ctx.config),
      toolkitOutputs(ctx.config),
    );
    if (untracked.length > 0) {
      throw new RuleError(
        'UNTRACKED_INPUTS',
        `refusing to build ${ctx.tag}: ${untrackedLine(untracked)}; they would ship in the images without being in the tag`,
        {
          hint: 'commit the untracked files, delete them, or add them to .gitignore; then stamp and build again',
        },
      );
    }
    io.progress('none');
  },
};
