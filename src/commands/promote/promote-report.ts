import { orderedWrites, type PromotionPlan, short } from '../../channels/promotion-plan.ts';
import { InterruptedError } from '../../errors.ts';
import type { StepReport } from '../../pipeline/step.ts';
import type { PromotionSigning } from '../../record/release-record.ts';
import { type PromotionFailedError, referenceOf } from '../../registry/apply-promotion.ts';
import type { ImageStore } from '../../registry/store.ts';
import { shortKeyId } from '../../signing/keys.ts';
import { printJson, printLine, warn } from '../output.ts';
import { packageLines, packageView } from './package-promotion.ts';
import type { PromoteContext } from './promote-context.ts';
import { comparisonSummary } from './promote-restamp-step.ts';
import { settleSummary } from './promote-settle-step.ts';

/** What a promotion that ran to its end prints: the plan and what came of it, as `--json` or lines. */
export function printPromoteReport(ctx: PromoteContext, store: ImageStore): void {
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

/** A promotion whose tag writes failed: the error (stderr, or `--json`) says what was done and undone; show the plan too. */
export function showFailedPlan(error: PromotionFailedError, store: ImageStore, ctx: PromoteContext): void {
  if (!ctx.plan) return;
  error.plan = planView(store, ctx.plan);
  if (!ctx.json) printPlan(store, ctx.plan);
}

/**
 * SIGINT/SIGTERM: the runner finished the writes under way and skipped the rest. Say what that
 * left, in the message (stderr) and in the `--json` error document (plan, result, latest, skipped).
 */
export function describeStop(
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
