import { imageOfRole } from '../../config/artifacts.ts';
import { IMAGE_ROLES } from '../../config/artifacts-schema.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';
import { gitTag } from './workspace.ts';

interface PromoteJson {
  plan: { artifacts: { artifact: string; source: string; writes: { reference: string }[] }[] };
}

/** `release promote --channel dev`: `dev` and `sha-<commit>` for every image. */
export const rehearsePromoteDevStep: Step<RehearseContext> = {
  title: 'Promote to dev',
  async run(ctx) {
    const { json } = await releaseJson<PromoteJson>(['promote', '--channel', 'dev'], {
      cwd: ctx.repo!,
      env: ctx.releaseEnv!,
    });
    ctx.notes[this.title] = `${countWrites(json)} tags written (dev, sha-<commit>)`;
  },
};

/** A key pair, then `release promote --channel rc` (signed); `latest` must not exist afterwards. */
export const rehearsePromoteRcStep: Step<RehearseContext> = {
  title: 'Promote the release candidate (signed), leaving latest alone',
  async run(ctx) {
    await releaseJson(['keygen', '--out', 'keys'], { cwd: ctx.repo!, env: ctx.releaseEnv! });
    const { json } = await releaseJson<PromoteJson>(['promote', '--channel', 'rc'], {
      cwd: ctx.repo!,
      env: ctx.releaseEnv!,
    });
    ctx.rcDigests = Object.fromEntries(json.plan.artifacts.map((a) => [a.artifact, a.source]));
    const latest = await latestDigests(ctx);
    const moved = Object.entries(latest).filter(([, digest]) => digest !== undefined);
    if (moved.length > 0) {
      throw new RuleError(
        'REHEARSAL_RC_MOVED_LATEST',
        `the rc promotion moved latest of ${moved.map(([a]) => a).join(', ')}`,
      );
    }
    ctx.notes[this.title] =
      `${REHEARSAL.rcTag} tagged and signed for ${IMAGE_ROLES.join(', ')}; latest: absent, untouched`;
  },
};

/** Tag the release, then promote the rc's exact digests: `vX.Y.Z` and `latest`, no rebuild. */
export const rehearsePromoteReleaseStep: Step<RehearseContext> = {
  title: 'Release the rc digests as the full release',
  async run(ctx) {
    await gitTag(ctx.repo!, REHEARSAL.releaseTag);
    await releaseJson(
      ['promote', '--channel', 'release', '--from', REHEARSAL.rcTag, '--version', REHEARSAL.releaseTag],
      {
        cwd: ctx.repo!,
        env: ctx.releaseEnv!,
      },
    );
    const latest = await latestDigests(ctx);
    for (const artifact of IMAGE_ROLES) {
      if (latest[artifact] !== ctx.rcDigests![artifact]) {
        throw new RuleError(
          'REHEARSAL_RELEASE_DIGEST',
          `latest of ${artifact} is ${latest[artifact] ?? 'absent'}, not the rc's ${ctx.rcDigests![artifact]}`,
        );
      }
    }
    ctx.notes[this.title] =
      `${REHEARSAL.releaseTag} and latest point at the rc's digests (signature checked first)`;
  },
};

async function latestDigests(ctx: RehearseContext): Promise<Record<string, string | undefined>> {
  const store = openConfiguredStore({ config: ctx.config, configDir: ctx.repo!, env: ctx.releaseEnv! });
  const entries = await Promise.all(
    IMAGE_ROLES.map(async (artifact) => {
      const descriptor = await store.resolve(imageOfRole(ctx.config, artifact), 'latest');
      return [artifact, descriptor?.digest] as const;
    }),
  );
  return Object.fromEntries(entries);
}

function countWrites(json: PromoteJson): number {
  return json.plan.artifacts.reduce((n, a) => n + a.writes.length, 0);
}
