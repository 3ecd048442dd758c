import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { currentIo } from '../../../console/cli-io.ts';
import { acquireLock } from '../../../files/file-lock.ts';
import { runPipeline } from '../../../pipeline/runner.ts';
import type { UpgradeEngine } from '../upgrade-engine.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';
import { composeUpgradePipeline } from './compose-pipeline.ts';
import { composeUpgradeJson, renderComposeUpgrade } from './compose-report.ts';
import { openComposeContext } from './open-compose-context.ts';

/**
 * `release upgrade` on a Compose project: its containers through the Engine API, every change
 * through the Compose CLI with an override file; the user's files are never written.
 */
export const composeEngine: UpgradeEngine = {
  async run(input) {
    const ctx = await openComposeContext(input);
    // One upgrade of a project at a time: a second would read the first's containers mid-change,
    // and its rollback would put back what the first just did. A dry run changes nothing.
    const unlock = ctx.dryRun ? undefined : await lockProject(ctx);
    try {
      await runPipeline(composeUpgradePipeline, ctx, {
        json: ctx.json || !currentIo().stderr.isTTY,
        env: ctx.env,
        dryRun: ctx.dryRun,
      });
    } finally {
      await unlock?.();
    }
    return {
      ctx,
      plan: ctx.plan!,
      fromTag: ctx.fromTag,
      report: { json: () => composeUpgradeJson(ctx), lines: () => renderComposeUpgrade(ctx) },
    };
  },
  raisesCliMinimumAfterRun: false,
};

/**
 * The project's upgrade lock, beside its override (`.release/<project>.upgrade.lock`): held while
 * an upgrade and its rollback run, taken over at once from one that was killed (files/file-lock.ts). Another
 * upgrade under way is an outside system busy: exit 3, before anything is read or changed.
 */
async function lockProject(ctx: ComposeUpgradeContext): Promise<() => Promise<void>> {
  const path = join(dirname(ctx.overridePath), `${ctx.project.name}.upgrade.lock`);
  await mkdir(dirname(path), { recursive: true });
  return acquireLock(path, {
    what: `Compose project "${ctx.project.name}"`,
    waitMs: 2_000,
    code: 'UPGRADE_UNDER_WAY',
    hint: `another release upgrade of Compose project "${ctx.project.name}" is under way; let it finish (or stop it), then run this one again`,
    notice: (text) => ctx.warnings.push(text),
  });
}
