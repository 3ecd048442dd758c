import { relative } from 'node:path';
import { rfc3339 } from '../../oci-image/image-config.ts';
import type { Step } from '../../pipeline/step.ts';
import {
  cliRecord,
  type ImageRecord,
  imageRecord,
  readReleaseRecord,
  writeReleaseRecord,
} from '../../record/release-record.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * Put each image's digest and where it is, and the archive's path and SHA-256, into the record.
 * The record is read again just before the write (another step of the job may have added to it)
 * and replaced atomically, so a failed build leaves the record as it was.
 */
export const buildWriteRecordStep: Step<BuildContext> = {
  title: 'Update the release record',
  writes: true,
  async run(ctx, io) {
    const record = await readReleaseRecord(ctx.recordPath);
    for (const artifact of imagesToBuild(ctx)) {
      const built = ctx.built[artifact.name]!;
      const entry: ImageRecord = imageRecord(record, artifact.name) ?? {
        ...(artifact.role ? { role: artifact.role } : {}),
        repository: `${ctx.config.registry}/${artifact.image}`,
        references: [],
      };
      record.artifacts[artifact.name] = entry;
      if (built.digest) entry.digest = built.digest;
      else delete entry.digest;
      entry.build = {
        engine: built.engine,
        reference: built.reference,
        pushed: built.pushed,
        ...(built.imageId ? { imageId: built.imageId } : {}),
        base: built.base,
        created: rfc3339(ctx.epoch!),
      };
    }
    const cli = cliRecord(record);
    if (ctx.cli && cli) {
      cli.archive = relative(ctx.cwd, ctx.cli.path) || ctx.cli.path;
      cli.sha256 = ctx.cli.sha256;
      cli.size = ctx.cli.size;
      if (ctx.cli.version !== undefined) cli.version = ctx.cli.version;
    }
    await writeReleaseRecord(ctx.recordPath, record);
    io.progress(relative(ctx.cwd, ctx.recordPath));
  },
};
