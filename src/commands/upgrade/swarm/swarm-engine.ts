import { currentIo } from '../../../console/cli-io.ts';
import { runPipeline } from '../../../pipeline/runner.ts';
import { openDockerEngine } from '../docker/docker-engine.ts';
import type { UpgradeEngine } from '../upgrade-engine.ts';
import { runContextOf } from '../upgrade-input.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';
import { swarmUpgradePipeline } from './swarm-pipeline.ts';
import { renderSwarmUpgrade, swarmUpgradeJson } from './swarm-report.ts';

/** `release upgrade` on Docker Swarm: the services of a stack, through a manager's Engine API. */
export const swarmEngine: UpgradeEngine = {
  async run(input) {
    const engine = await openDockerEngine(input);
    const ctx: SwarmUpgradeContext = { ...runContextOf(input), ...engine, touched: new Set() };
    await runPipeline(swarmUpgradePipeline, ctx, {
      json: ctx.json || !currentIo().stderr.isTTY,
      env: ctx.env,
      dryRun: ctx.dryRun,
    });
    return {
      ctx,
      plan: ctx.plan!,
      fromTag: ctx.running?.find((s) => s.role === 'api')?.version,
      report: { json: () => swarmUpgradeJson(ctx), lines: () => renderSwarmUpgrade(ctx) },
    };
  },
  raisesCliMinimumAfterRun: true,
};
