import { latestOutcome } from '../../channels/latest-repair.ts';
import { short } from '../../channels/promotion-plan.ts';
import { ExternalError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { PromotionFailedError, referenceOf } from '../../registry/apply-promotion.ts';
import { settleLatest } from '../../registry/settle-latest.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * Release channel: after this run's writes (or its failure), bring `latest` of every artifact to
 * the highest stable version they all carry, re-reading until one read shows it (the argument is
 * in `registry/settle-latest.ts`). Runs even when this run had nothing to write, so any release
 * promote repairs a `latest` left split. The outcome says what became of this run's `latest`.
 */
export const promoteSettleStep: Step<PromoteContext> = {
  title: 'Settle latest',
  writes: true,
  completesWrites: true, // after a stop too: latest must not stay split
  skip: (ctx) => (ctx.channel !== 'release' ? `the ${ctx.channel} channel never moves latest` : false),
  async run(ctx, io) {
    const artifacts = ctx.plan!.artifacts.map((a) => ({ artifact: a.artifact, repository: a.repository }));
    const settle = await settleLatest(ctx.store, artifacts, { onProgress: io.progress });
    ctx.settle = settle;
    const outcome = latestOutcome(ctx.plan!.tag, settle);
    ctx.latestOutcome = outcome;
    const failure = ctx.applyFailure;
    const summary = settleSummary(ctx);
    if (failure && outcome.kind !== 'current' && outcome.kind !== 'superseded') {
      throw new PromotionFailedError(`${failure.message}\n${summary}`, failure.result, {
        hint: failure.hint ?? 'run the same promote again',
        cause: failure,
      });
    }
    if (failure) {
      // Every tag of this version is in place and latest settled: the failed write was repaired.
      ctx.warnings.push(
        `a write failed (${failure.result.failure?.message ?? failure.message}); the settle completed the promotion`,
      );
    }
    if (outcome.kind === 'unsettled') {
      throw new ExternalError('LATEST_NOT_SETTLED', summary, {
        hint: 'run `release promote --channel release` again (any version): it repairs latest',
      });
    }
  },
};

/** Lines for the output: where latest ended up, and every repair this run made and why. */
export function settleSummary(ctx: PromoteContext): string {
  const settle = ctx.settle!;
  const outcome = ctx.latestOutcome!;
  const lines: string[] = [];
  const written = new Set(
    (ctx.result?.written ?? []).filter((w) => w.reference.endsWith(':latest')).map((w) => w.reference),
  );
  switch (outcome.kind) {
    case 'current':
      lines.push(`latest: ${outcome.version} on every artifact`);
      break;
    case 'superseded':
      lines.push(
        `latest: ${outcome.by} on every artifact; ${outcome.version} was superseded by ${outcome.by}, the highest stable version present`,
      );
      break;
    case 'incomplete':
      lines.push(
        `latest: ${outcome.latest ?? '(none)'}; ${outcome.version} is not on every artifact, so latest does not point at it`,
      );
      break;
    case 'unsettled':
      lines.push(
        `latest may be split (${settle.problem ?? 'not settled'}): ${Object.entries(settle.latest)
          .map(([a, d]) => `${a} ${short(d)}`)
          .join(', ')}`,
      );
      break;
  }
  for (const r of settle.repairs) {
    const reference = referenceOf(ctx.store, r.repository, 'latest');
    const undone = written.has(reference) && r.version === outcome.version;
    lines.push(
      `  repaired ${reference}: ${short(r.from)} -> ${short(r.to)} (${r.version})${
        undone
          ? ': this run’s write had been undone by a concurrent run (a rollback or an older release)'
          : ''
      }`,
    );
  }
  return lines.join('\n');
}
