import { rm } from 'node:fs/promises';
import { isReleaseError } from '../../errors.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import type { StepReport } from '../../pipeline/step.ts';
import type { GlobalOptions } from '../command-context.ts';
import { baseContext } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';
import { rehearsalReport, renderRehearsal } from './rehearsal-report.ts';
import type { RehearseContext } from './rehearse-context.ts';
import { rehearsePipeline } from './rehearse-pipeline.ts';

export interface RehearseOptions extends GlobalOptions {
  keep?: boolean;
  engine?: 'oci' | 'docker';
  /** Publish the CLI package through the channels to a local Verdaccio. */
  publish?: boolean;
}

/**
 * `release rehearse`: run the whole pipeline in a throw-away workspace, report every step with its
 * time, and always clean up what it started, whether the rehearsal passed or not.
 */
export async function runRehearse(options: RehearseOptions): Promise<void> {
  const base = await baseContext(options);
  const ctx: RehearseContext = {
    ...base,
    engine: options.engine ?? 'oci',
    keep: Boolean(options.keep),
    publish: Boolean(options.publish),
    services: [],
    containers: [],
    notes: {},
    breakdowns: {},
    laneReports: {},
  };
  const reports: StepReport[] = [];
  const started = performance.now();
  let failure: unknown;
  try {
    await runPipeline(rehearsePipeline, ctx, { json: ctx.json, env: ctx.env, dryRun: ctx.dryRun, reports });
  } catch (error) {
    failure = error;
  } finally {
    await cleanUp(ctx);
  }
  const report = rehearsalReport(ctx, reports, performance.now() - started, failure);
  if (ctx.json) printJson(report);
  else for (const line of renderRehearsal(report)) printLine(line);
  if (failure !== undefined) {
    // With --json the report above already carries the error: say nothing twice on stdout.
    if (ctx.json && isReleaseError(failure)) failure.reported = true;
    throw failure;
  }
}

async function cleanUp(ctx: RehearseContext): Promise<void> {
  // The old CLI's install may still run (a step failed before the gate): let it end first.
  await ctx.oldCli?.catch(() => undefined);
  await Promise.all([
    ...ctx.services.map((service) => service.process.stop()),
    ...ctx.containers.map((container) => container.stop()),
  ]);
  await ctx.registry?.stop();
  await ctx.npmRegistry?.stop();
  if (ctx.workspace && !ctx.keep) await rm(ctx.workspace, { recursive: true, force: true });
}
