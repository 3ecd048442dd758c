import { createHash } from 'node:crypto';
import { imageSource } from '../../build/image-source.ts';
import { buildEpoch } from '../../build/image-specs.ts';
import { buildTag } from '../../channels/tags.ts';
import { UsageError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { readReleaseRecord } from '../../record/release-record.ts';
import { imageTagOf, isValidImageTag } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import type { BuildContext } from './build-context.ts';

/** Read what `release stamp` decided; SERVICE_VERSION, when set, names the tag to build. */
export const buildReadRecordStep: Step<BuildContext> = {
  title: 'Read the release record',
  async run(ctx, io) {
    const record = await readReleaseRecord(ctx.recordPath);
    const fromEnv = ctx.env['SERVICE_VERSION']?.trim();
    let tag = record.tag;
    if (fromEnv) {
      tag = imageTagOf(parseVersion(fromEnv));
      if (!isValidImageTag(tag)) {
        throw new UsageError(
          'VERSION_NOT_A_TAG',
          `SERVICE_VERSION "${JSON.stringify(fromEnv).slice(1, -1)}" is not a valid image tag`,
          {
            hint: 'set SERVICE_VERSION to a tag such as v1.2.3, or unset it to build the stamped version',
          },
        );
      }
      if (tag !== record.tag) {
        ctx.warnings.push(
          `SERVICE_VERSION gives ${tag} but the release record was stamped ${record.tag}: building ${tag}; run \`release stamp\` again to keep the record in step`,
        );
      }
    }
    const sourceDateEpoch = ctx.env['SOURCE_DATE_EPOCH']?.trim();
    if (sourceDateEpoch && !/^\d{1,12}$/.test(sourceDateEpoch)) {
      throw new UsageError(
        'SOURCE_DATE_EPOCH_INVALID',
        `SOURCE_DATE_EPOCH "${sourceDateEpoch.slice(0, 40)}" is not a number of seconds`,
        {
          hint: "set it to the commit time (git log -1 --format=%ct) or unset it to use the record's commit time",
        },
      );
    }
    ctx.record = record;
    ctx.tag = tag;
    ctx.buildTag = buildTag(record.commit, createHash('sha256').update(tag).digest('hex'));
    ctx.epoch = buildEpoch(ctx.env, record.commitTime);
    ctx.source = await imageSource(ctx.cwd);
    io.progress(`${tag} (commit ${record.commit?.slice(0, 12) ?? 'none'}), written as ${ctx.buildTag}`);
  },
};
