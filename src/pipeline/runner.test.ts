import { describe, expect, it } from 'vitest';
import { DRY_RUN, runPipeline } from './runner.ts';
import type { Step } from './step.ts';

interface Ctx {
  ran: string[];
}

const read: Step<Ctx> = { title: 'read', run: (ctx) => void ctx.ran.push('read') };
const write: Step<Ctx> = { title: 'write', writes: true, run: (ctx) => void ctx.ran.push('write') };
const notApplicable: Step<Ctx> = {
  title: 'publish',
  writes: true,
  skip: () => 'nothing to publish',
  run: (ctx) => void ctx.ran.push('publish'),
};

describe('runPipeline', () => {
  it('skips every writing step under --dry-run and reports it as skipped for a dry run', async () => {
    const ctx: Ctx = { ran: [] };
    const reports = await runPipeline([read, write], ctx, { json: true, env: {}, dryRun: true });
    expect(ctx.ran).toEqual(['read']);
    expect(reports.map((r) => [r.title, r.status, r.reason])).toEqual([
      ['read', 'done', undefined],
      ['write', 'skipped', DRY_RUN],
    ]);
  });

  it('runs writing steps when it is not a dry run', async () => {
    const ctx: Ctx = { ran: [] };
    await runPipeline([read, write], ctx, { json: true, env: {} });
    expect(ctx.ran).toEqual(['read', 'write']);
  });

  it("gives a step's own skip reason before the dry run's", async () => {
    const reports = await runPipeline([notApplicable], { ran: [] }, { json: true, env: {}, dryRun: true });
    expect(reports[0]).toMatchObject({ status: 'skipped', reason: 'nothing to publish' });
  });

  it('rethrows a failing step untouched and reports it failed', async () => {
    const boom = new Error('boom');
    const failing: Step<Ctx> = {
      title: 'fail',
      run: () => {
        throw boom;
      },
    };
    const reports: never[] = [];
    await expect(runPipeline([failing, read], { ran: [] }, { json: true, env: {}, reports })).rejects.toBe(
      boom,
    );
    expect(reports).toMatchObject([{ title: 'fail', status: 'failed', reason: 'boom' }]);
  });
});
