import { dirname } from 'node:path';
import type { Channel } from '../../channels/channel-of.ts';
import { orderedWrites, type PromotionPlan, short } from '../../channels/promotion-plan.ts';
import { InterruptedError } from '../../errors.ts';
import { sweepDeadTemporaries } from '../../files/sweep-temporaries.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import type { StepReport } from '../../pipeline/step.ts';
import { stopCleanly } from '../../processes/interrupt.ts';
import { type PromotionSigning, recordPath } from '../../record/release-record.ts';
import { PromotionFailedError, referenceOf } from '../../registry/apply-promotion.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { recoverNow } from '../../registry/recovering-store.ts';
import type { ImageStore } from '../../registry/store.ts';
import { shortKeyId } from '../../signing/keys.ts';
import type { GlobalOptions } from '../command-context.ts';
import { baseContext } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import { packageLines, packageView, settlePackageAfterFailure } from './package-promotion.ts';
import type { PromoteContext } from './promote-context.ts';
import { promotePipeline } from './promote-pipeline.ts';
import { comparisonSummary } from './promote-restamp-step.ts';
import { settleSummary } from './promote-settle-step.ts';

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
    if (error instanceof PromotionFailedError && ctx.plan) {
      // The error (stderr, or the --json document) says what was done and undone; show the plan too.
      error.plan = planView(store, ctx.plan);
      if (!ctx.json) printPlan(store, ctx.plan);
    }
    throw error;
  } finally {
    // The group of tag writes is over (done, undone or reported): nothing is left to recover.
    await ctx.journal?.end();
  }
  const plan = ctx.plan!;
  const writes = orderedWrites(plan).length;
  if (ctx.json) {
    printJson({
      dryRun: ctx.dryRun,
      channel: plan.channel,
      tag: plan.tag,
      from: ctx.from ?? null,
      store: store.name,
      plan: planView(store, plan),
      result: ctx.dryRun
        ? null
        : (ctx.result ?? { status: 'promoted', written: [], undone: [], notUndone: [] }),
      signing: ctx.signing ?? null,
      latest: ctx.settle ? latestView(store, ctx) : null,
      package: packageView(ctx.cliPackage, ctx.dryRun),
      cliReversion: ctx.cliReversion
        ? {
            strategy: ctx.cliReversion.strategy,
            reason: ctx.cliReversion.reason,
            differs: ctx.cliReversion.comparison?.versionOnly ?? [],
            identical: ctx.cliReversion.comparison?.identical.length ?? null,
          }
        : null,
      imageRebuilds: ctx.imageRebuilds ?? null,
      warnings: ctx.warnings,
    });
  } else {
    printPlan(store, plan);
    if (ctx.settle) printLine(settleSummary(ctx));
    if (ctx.signing) printLine(signingLine(ctx.signing));
    if (ctx.cliReversion)
      printLine(
        `CLI archive ${ctx.cliReversion.strategy}: ${ctx.cliReversion.reason}${ctx.cliReversion.comparison ? `; ${comparisonSummary(ctx.cliReversion.comparison)}` : ''}`,
      );
    for (const [name, c] of Object.entries(ctx.imageRebuilds ?? {}))
      printLine(
        `${name} ${c.strategy === 'rebuild' ? "rebuilt from the rc's commit" : "rewritten in the rc's baked files"} (${c.reason}): ${comparisonSummary(c)}`,
      );
    if (ctx.cliPackage) for (const line of packageLines(ctx.cliPackage, ctx.dryRun)) printLine(line);
    const kept = plan.artifacts.reduce((n, a) => n + a.kept.length, 0);
    printLine(
      ctx.dryRun
        ? `dry run: ${writes} tag(s) would be written; nothing was written`
        : `promoted ${plan.tag} to ${plan.channel}: ${writes} tag(s) written, ${kept} left as they are`,
    );
  }
  for (const text of ctx.warnings) warn(text);
}

/**
 * SIGINT/SIGTERM: the runner finished the writes under way and skipped the rest. Say what that
 * left, in the message (stderr) and in the `--json` error document (plan, result, latest, skipped).
 */
function describeStop(
  error: InterruptedError,
  store: ImageStore,
  ctx: PromoteContext,
  reports: StepReport[],
): InterruptedError {
  const skipped = reports.filter((r) => r.status === 'skipped' && r.reason?.startsWith('stopped by'));
  const wrote = ctx.result?.written.length ?? 0;
  const stage = !ctx.result
    ? 'before-tags'
    : ctx.result.status === 'promoted'
      ? 'tags-completed'
      : 'tags-failed';
  const lines = [
    stage === 'before-tags'
      ? `stopped by ${error.signal} before any tag was written: no tag changed`
      : `stopped by ${error.signal}: the tag writes under way were completed (${wrote} written)`,
  ];
  if (ctx.settle) lines.push(settleSummary(ctx));
  if (skipped.length) lines.push(`not done: ${skipped.map((r) => r.title.toLowerCase()).join('; ')}`);
  const stop = new InterruptedError(error.signal, lines.join('\n'), {
    hint: 'run the same `release promote` again: it keeps what is in place and does the rest',
  });
  stop.outcome = {
    stage,
    skipped: skipped.map((r) => r.title),
    plan: ctx.plan ? planView(store, ctx.plan) : null,
    result: ctx.result ?? null,
    latest: ctx.settle ? latestView(store, ctx) : null,
  };
  return stop;
}

/** Where latest settled (release channel), as in `--json`: the outcome and every repair made. */
function latestView(store: ImageStore, ctx: PromoteContext) {
  const settle = ctx.settle!;
  return {
    outcome: ctx.latestOutcome,
    converged: settle.converged,
    version: settle.target?.version ?? null,
    rounds: settle.rounds,
    digests: settle.latest,
    repairs: settle.repairs.map((r) => ({
      reference: referenceOf(store, r.repository, 'latest'),
      from: r.from,
      to: r.to,
      version: r.version,
    })),
  };
}

/** The plan as printed and as in `--json`: full references, old and new digest, and why. */
function planView(store: ImageStore, plan: PromotionPlan) {
  return {
    tag: plan.tag,
    channel: plan.channel,
    notes: plan.notes,
    artifacts: plan.artifacts.map((a) => ({
      artifact: a.artifact,
      repository: a.repository,
      source: a.source,
      writes: a.writes.map((w) => ({
        reference: referenceOf(store, w.repository, w.tag),
        kind: w.kind,
        from: w.from,
        to: w.to,
        reason: w.reason,
      })),
      kept: a.kept.map((k) => ({
        reference: referenceOf(store, k.repository, k.tag),
        digest: k.digest,
        reason: k.reason,
      })),
    })),
  };
}

function printPlan(store: ImageStore, plan: PromotionPlan): void {
  printLine(`plan: ${plan.tag} -> ${plan.channel} in ${store.name}`);
  for (const a of plan.artifacts) {
    printLine(`  ${a.artifact} (${short(a.source)})`);
    for (const w of a.writes)
      printLine(
        `    write ${referenceOf(store, w.repository, w.tag)}  ${short(w.from)} -> ${short(w.to)}  ${w.reason}`,
      );
    for (const k of a.kept)
      printLine(`    keep  ${referenceOf(store, k.repository, k.tag)}  ${short(k.digest)}  ${k.reason}`);
  }
  for (const note of plan.notes) printLine(`  note: ${note}`);
}

/** One line on signatures: signed or verified by which key, or promoted unsigned. */
function signingLine(signing: PromotionSigning): string {
  const key = signing.keyId ? ` by key ${shortKeyId(signing.keyId)}` : '';
  const what = Object.keys(signing.artifacts ?? {}).join(', ');
  if (signing.status === 'unsigned') return `signatures: none (${signing.reason ?? '--no-sign'})`;
  return `signatures: ${what} ${signing.status}${key}`;
}
