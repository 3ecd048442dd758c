import type { Step } from '../../pipeline/step.ts';
import { type PromotionEntry, readReleaseRecord, writeReleaseRecord } from '../../record/release-record.ts';
import { referenceOf } from '../../registry/apply-promotion.ts';
import type { PromoteContext } from './promote-context.ts';

/** Append the promotion to the record's `promotions` (read again just before, replaced atomically). */
export const promoteRecordStep: Step<PromoteContext> = {
  title: 'Update the release record',
  writes: true,
  skip: (ctx) => (!ctx.record ? 'no release record (--from and --version given)' : false),
  async run(ctx) {
    const record = await readReleaseRecord(ctx.recordPath);
    const plan = ctx.plan!;
    const ref = (repository: string, tag: string) => referenceOf(ctx.store, repository, tag);
    const entry: PromotionEntry = {
      channel: plan.channel,
      tag: plan.tag,
      at: new Date().toISOString(),
      from: ctx.from ?? null,
      store: ctx.store.name,
      artifacts: Object.fromEntries(
        plan.artifacts.map((a) => [
          a.artifact,
          {
            digest: a.source,
            written: a.writes.map((w) => ref(w.repository, w.tag)),
            kept: a.kept.map((k) => ref(k.repository, k.tag)),
          },
        ]),
      ),
      ...(ctx.signing ? { signing: ctx.signing } : {}),
      ...(ctx.restamped && Object.keys(ctx.restamped).length
        ? { madeFrom: Object.fromEntries(Object.entries(ctx.restamped).map(([a, r]) => [a, r.from])) }
        : {}),
      ...(ctx.releaseSigning ? { releaseSigning: ctx.releaseSigning } : {}),
    };
    record.promotions = [...(record.promotions ?? []), entry];
    await writeReleaseRecord(ctx.recordPath, record);
  },
};
