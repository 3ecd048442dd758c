import { appendFile } from 'node:fs/promises';
import { ExternalError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { stampOutputs } from '../../stamp/stamp-files.ts';
import type { StampContext } from './stamp-context.ts';

/** Append `key=value` lines to `$GITHUB_OUTPUT` so later workflow steps can read the stamp. */
export const githubOutputStep: Step<StampContext> = {
  title: 'Write GitHub Actions outputs',
  writes: true,
  skip: (ctx) => (!ctx.env['GITHUB_OUTPUT'] ? 'GITHUB_OUTPUT is not set' : false),
  async run(ctx) {
    const lines = Object.entries(stampOutputs(ctx.decision!.record, ctx.config)).map(
      ([key, value]) => `${key}=${value ?? ''}\n`,
    );
    try {
      await appendFile(ctx.env['GITHUB_OUTPUT']!, lines.join(''));
    } catch (error) {
      throw new ExternalError(
        'GITHUB_OUTPUT_FAILED',
        `could not append to GITHUB_OUTPUT (${ctx.env['GITHUB_OUTPUT']})`,
        {
          hint: 'check that the path in GITHUB_OUTPUT is writable',
          cause: error,
        },
      );
    }
  },
};
