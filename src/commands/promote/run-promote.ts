import { dirname } from 'node:path';
import type { Channel } from '../../channels/channel-of.ts';
import { InterruptedError } from '../../errors.ts';
import { sweepDeadTemporaries } from '../../files/sweep-temporaries.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import type { StepReport } from '../../pipeline/step.ts';
import { stopCleanly } from '../../processes/interrupt.ts';
import { recordPath } from '../../record/release-record.ts';
import { PromotionFailedError } from '../../registry/apply-promotion.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { recoverNow } from '../../registry/recovering-store.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { GlobalOptions } from '../command-context.ts';
import { baseContext } from '../command-context.ts';
import { settlePackageAfterFailure } from './package-promotion.ts';
import type { PromoteContext } from './promote-context.ts';
import { promotePipeline } from './promote-pipeline.ts';
import { describeStop, printPromoteReport, showFailedPlan } from './promote-report.ts';

export interface PromoteOptions extends GlobalOptions {
  channel: Channel;
  version?: string;
  from?: string;
  /** `--no-sign` sets false (the rc channel signs unless told not to). */
  sign?: boolean;
  key?: string;
}

export async function runPromote(options: PromoteOptions): Promise<void> {
  const base = await baseContext(options);
  const store = openConfiguredStore(base);
  const ctx: PromoteContext = {
    ...base,
    channel: options.channel,
    ...(options.version ? { versionFlag: options.version } : {}),
    ...(options.from ? { from: options.from } : {}),
    recordPath: recordPath(base.configDir, base.config.record),
    store,
    sign: options.sign !== false,
    ...(options.key ? { keyPath: options.key } : {}),
  };
  // The whole run is one region a signal waits for, up to its last line of output: a stop that
  // lands after the pipeline (while the journal is removed, or the result printed) must not end
  // the process there, with the journal still on disk or a second document on stdout.
  await stopCleanly(() => promote(ctx, store));
}

async function promote(ctx: PromoteContext, store: ImageStore): Promise<void> {
  // What a killed promotion left is finished or undone first (a stop requested meanwhile then
  // skips every step: nothing of this run was written).
  await recoverNow(store);
  await sweepDeadTemporaries([dirname(ctx.recordPath)]); // a record write a kill cut short
  const reports: StepReport[] = [];
  try {
    await runPipeline(promotePipeline, ctx, { ...ctx, reports, stopsCleanly: true });
  } catch (error) {
    if (error instanceof InterruptedError) throw describeStop(error, store, ctx, reports);
    await settlePackageAfterFailure(ctx.cliPackage, error);
    if (error instanceof PromotionFailedError) showFailedPlan(error, store, ctx);
    throw error;
  } finally {
    // The group of tag writes is over (done, undone or reported): nothing is left to recover.
    await ctx.journal?.end();
  }
  printPromoteReport(ctx, store);
}
