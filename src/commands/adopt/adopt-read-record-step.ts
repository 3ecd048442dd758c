import { createHash } from 'node:crypto';
import { imageSource } from '../../build/image-source.ts';
import { buildTag } from '../../channels/tags.ts';
import type { Step } from '../../pipeline/step.ts';
import { readReleaseRecord } from '../../record/release-record.ts';
import type { AdoptContext } from './adopt-context.ts';

/** The version the images are adopted as: the one `release stamp` resolved. */
export const adoptReadRecordStep: Step<AdoptContext> = {
  title: 'Read the release record',
  async run(ctx, io) {
    const record = await readReleaseRecord(ctx.recordPath);
    ctx.record = record;
    ctx.tag = record.tag;
    ctx.buildTag = buildTag(record.commit, createHash('sha256').update(record.tag).digest('hex'));
    ctx.source = await imageSource(ctx.cwd);
    io.progress(`${record.tag} (commit ${record.commit?.slice(0, 12) ?? 'none'})`);
  },
};
