import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Step } from '../../pipeline/step.ts';
import { PENDING_DIST_TAG, packageRef } from './package-promotion.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * Publish the CLI package before any tag moves, under a pending dist-tag (npm always sets one), so
 * `latest`, `next` and `dev` move later, together with the images'. Published versions are
 * permanent: from here on, a failure says so.
 */
export const promotePublishPackageStep: Step<PromoteContext> = {
  title: 'Publish the CLI package',
  writes: true,
  skip: (ctx) =>
    !ctx.cliPackage
      ? (ctx.cliNotPublished ?? 'artifacts.cli.publish is off')
      : ctx.dryRun
        ? 'dry run'
        : ctx.cliPackage.plan.publish
          ? false
          : ctx.cliPackage.plan.publishReason,
  async run(ctx, io) {
    const p = ctx.cliPackage!;
    const stage = await mkdtemp(join(tmpdir(), 'release-publish-'));
    try {
      const file = join(stage, 'package.tgz');
      await writeFile(file, p.tarball);
      await p.npm.publish(file, PENDING_DIST_TAG);
      p.published = true;
    } finally {
      await rm(stage, { recursive: true, force: true });
    }
    io.progress(`${packageRef(p)} published to ${p.registry} (${p.integrity.slice(0, 20)}…)`);
  },
};
