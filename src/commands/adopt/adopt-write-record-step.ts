import { relative } from 'node:path';
import type { Step } from '../../pipeline/step.ts';
import {
  type ImageRecord,
  imageRecord,
  readReleaseRecord,
  writeReleaseRecord,
} from '../../record/release-record.ts';
import type { AdoptContext } from './adopt-context.ts';
import { adoptedOrigin } from './adopt-origin.ts';

/**
 * Each adopted image's digest into the record, where `release build` puts its own (what promote
 * reads), marked `adopted` with where it came from instead of a `build` of ours. Read again just
 * before the write and replaced atomically; artifacts not handed over are left as they were.
 */
export const adoptWriteRecordStep: Step<AdoptContext> = {
  title: 'Update the release record',
  writes: true,
  async run(ctx, io) {
    const record = await readReleaseRecord(ctx.recordPath);
    for (const { artifact, source, matchedBy } of ctx.placed!) {
      const checked = ctx.checked[artifact.name]!;
      const entry: ImageRecord = imageRecord(record, artifact.name) ?? {
        ...(artifact.role ? { role: artifact.role } : {}),
        repository: `${ctx.config.registry}/${artifact.image}`,
        references: [],
      };
      record.artifacts[artifact.name] = entry;
      entry.digest = source.image.digest;
      delete entry.build;
      entry.adopted = {
        from: adoptedOrigin(source),
        matchedBy,
        mediaType: checked.mediaType,
        ...(checked.platforms.length ? { platforms: checked.platforms } : {}),
        reference: `${ctx.config.registry}/${artifact.image}:${ctx.buildTag}`,
      };
    }
    await writeReleaseRecord(ctx.recordPath, record);
    io.progress(relative(ctx.cwd, ctx.recordPath));
  },
};
