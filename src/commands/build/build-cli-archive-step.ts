import { join } from 'node:path';
import type { Step } from '../../pipeline/step.ts';
import { buildCliArchive } from '../../service/svc/build/build-cli-archive.ts';
import type { BuildContext } from './build-context.ts';

/** `dist/service-cli.tar.gz` with the version baked in; the api image serves it. */
export const buildCliArchiveStep: Step<BuildContext> = {
  title: 'Build the CLI archive',
  skip: (ctx) => (!ctx.only.has('cli') && !ctx.only.has('api') ? 'not selected (--only)' : false),
  async run(ctx, io) {
    ctx.cli = await buildCliArchive({ version: ctx.tag!, outFile: join(ctx.distDir, 'service-cli.tar.gz') });
    io.progress(`${ctx.cli.path} sha256 ${ctx.cli.sha256.slice(0, 12)}`);
  },
};
