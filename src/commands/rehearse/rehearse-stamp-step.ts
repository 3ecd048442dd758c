import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';

/** `release stamp`: the version comes from git describe in the new repository. */
export const rehearseStampStep: Step<RehearseContext> = {
  title: 'Stamp the version from git',
  async run(ctx) {
    const { json } = await releaseJson<{ version: string; tag: string; channel: string; source: string }>(
      ['stamp'],
      {
        cwd: ctx.repo!,
        env: ctx.releaseEnv!,
      },
    );
    if (json.tag !== REHEARSAL.rcTag || json.channel !== 'rc' || json.source !== 'git') {
      throw new RuleError(
        'REHEARSAL_STAMP',
        `expected ${REHEARSAL.rcTag} on the rc channel from git, got ${JSON.stringify(json)}`,
      );
    }
    ctx.stamped = json;
    ctx.notes[this.title] = `${json.version} from ${json.source}, channel ${json.channel}`;
  },
};
