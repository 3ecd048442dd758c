import { writeFilesAtomically } from '../../files/atomic-write.ts';
import { sweepOwnTemporaries } from '../../files/own-temporaries.ts';
import type { Step } from '../../pipeline/step.ts';
import { stampFiles } from '../../stamp/stamp-files.ts';
import type { StampContext } from './stamp-context.ts';

/** Write the env file, build args, CLI metadata and release record: all of them or none. */
export const writeStampFilesStep: Step<StampContext> = {
  title: 'Write the stamp files',
  writes: true,
  async run(ctx) {
    const files = stampFiles(ctx.decision!.record, ctx.paths, ctx.config);
    await sweepOwnTemporaries(files.map((f) => f.path)); // a stamp killed mid-write
    await writeFilesAtomically(files);
  },
};
