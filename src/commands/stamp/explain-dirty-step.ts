import { changedFiles } from '../../git/changed-files.ts';
import type { Step } from '../../pipeline/step.ts';
import { printable } from '../../text/printable.ts';
import type { StampContext } from './stamp-context.ts';

/**
 * A dirty tree, said with its reason: the changed tracked files (the files `release init` just
 * wrote, most often), and that an rc and a release need them committed.
 */
export const explainDirtyStep: Step<StampContext> = {
  title: 'Say why the tree is dirty',
  skip: (ctx) => (ctx.repo?.dirty ? false : 'the tree is clean'),
  async run(ctx) {
    const { files, total } = await changedFiles(ctx.cwd);
    if (!total) return;
    const names = files.map((f) => printable(f)).join(', ');
    ctx.warnings.push(
      `the tree is dirty: ${total} changed file${total === 1 ? '' : 's'} (${names}${total > files.length ? ', ...' : ''}); commit ${total === 1 ? 'it' : 'them'}: an rc and a release need a clean tree, and a dev stamp says -dirty until then`,
    );
  },
};
