import type { ListrLogger, ListrLogLevels } from 'listr2';
import { currentIo } from '../console/cli-io.ts';
import { InterruptedError } from '../errors.ts';
import { onStop, stopCleanly, stopRequested } from '../processes/interrupt.ts';
import { printableLines } from '../text/printable.ts';
import type { Step, StepReport } from './step.ts';

export interface RunOptions {
  /** Machine output requested: no renderer at all, stdout stays clean for the JSON document. */
  json: boolean;
  env: Record<string, string | undefined>;
  /** `--dry-run`: steps that declare `writes` are skipped with the reason "dry run". */
  dryRun?: boolean;
  /** Collect the reports here as steps finish, so a caller still has them when a step throws. */
  reports?: StepReport[];
  /**
   * SIGINT/SIGTERM stop the run cleanly: a writing step under way finishes, steps that complete
   * its writes run, everything after is skipped, then `InterruptedError` (exit 130/143). A step
   * that only reads is abandoned at once. Without it a signal ends the process at once, as before.
   */
  stopsCleanly?: boolean;
}

/** Whether a writing step has run: after a stop, only steps that complete its writes still run. */
interface RunState {
  wrote: boolean;
  stopped: boolean;
}

/** The reason a writing step gives under `--dry-run`. */
export const DRY_RUN = 'dry run';

/**
 * Run steps in order and report each one's outcome and time. The one place that owns rendering,
 * skips and timing, so steps only do their work (goreleaser's cmd/release.go).
 *
 * Rendering: listr2's animated renderer on an interactive terminal; plain lines in CI or when
 * stderr is not a terminal; nothing with `--json`. The renderer writes to stderr so stdout carries
 * only the command's result. A failing step's original error is rethrown untouched. Dry run lives
 * here too (goreleaser's skip middleware): a step only declares that it writes.
 */
export async function runPipeline<C>(
  steps: readonly Step<C>[],
  ctx: C,
  options: RunOptions,
): Promise<StepReport[]> {
  if (!options.stopsCleanly) return runSteps(steps, ctx, options, { wrote: false, stopped: false });
  const state: RunState = { wrote: false, stopped: false };
  const reports = await stopCleanly(() => runSteps(steps, ctx, options, state));
  const signal = stopRequested();
  if (signal && state.stopped)
    throw new InterruptedError(signal, `stopped by ${signal}`, { hint: 'run the same command again' });
  return reports;
}

async function runSteps<C>(
  steps: readonly Step<C>[],
  ctx: C,
  options: RunOptions,
  state: RunState,
): Promise<StepReport[]> {
  const reports: StepReport[] = options.reports ?? [];
  // `--json` renders nothing, so it never loads the renderer: what CI runs starts faster.
  if (options.json) {
    for (const step of steps)
      await runStep(step, ctx, options, reports, { skip: () => {}, output: () => {} }, state);
    return reports;
  }
  const { Listr, ProcessOutput } = await import('listr2');
  const { stderr } = currentIo();
  const interactive = Boolean(stderr.isTTY) && !options.env['CI'];
  const list = new Listr(
    steps.map((step) => ({
      title: step.title,
      task: (_: unknown, task: { output: string; skip(message?: string): void }) =>
        shownSafely(
          runStep(
            step,
            ctx,
            options,
            reports,
            {
              // listr2 writes these itself (colours its own, in CI too): what came from outside is
              // made safe here, as the output layer makes every other line.
              skip: (reason) => task.skip(printableLines(reason)),
              output: (message) => {
                task.output = printableLines(message);
              },
            },
            state,
          ),
        ),
    })),
    {
      concurrent: false,
      exitOnError: true,
      renderer: interactive ? 'default' : 'simple',
      fallbackRenderer: 'simple',
      // Every renderer writes to stderr: stdout is the command's result (a table, a JSON document).
      rendererOptions: interactive
        ? { processOutput: new ProcessOutput(stderr as NodeJS.WriteStream, stderr as NodeJS.WriteStream) }
        : { logger: await stderrLogger() },
      fallbackRendererOptions: { logger: await stderrLogger() },
    } as never,
  );
  await list.run();
  return reports;
}

/**
 * One step: skipped with its reason (its own first: it says the step does not apply at all, which
 * is more useful to read in a dry run than "dry run"), else run and timed; a failure is reported
 * and rethrown untouched.
 */
async function runStep<C>(
  step: Step<C>,
  ctx: C,
  options: RunOptions,
  reports: StepReport[],
  show: { skip(reason: string): void; output(message: string): void },
  state: RunState,
): Promise<void> {
  const started = performance.now();
  const signal = options.stopsCleanly ? stopRequested() : undefined;
  const stopped = signal && !(step.completesWrites && state.wrote) ? `stopped by ${signal}` : false;
  // After a stop a step that would not have run anyway keeps its own reason (so "not done" lists
  // only real work); its skip may read what earlier, skipped steps never filled in.
  const own = stopped ? ownSkip(step, ctx) : step.skip?.(ctx);
  const reason = own || stopped || (step.writes && options.dryRun ? DRY_RUN : false);
  if (reason) {
    if (reason === stopped) state.stopped = true;
    reports.push({ title: step.title, status: 'skipped', reason, ms: 0 });
    show.skip(reason);
    return;
  }
  try {
    if (step.writes) state.wrote = true;
    const io = { progress: (message: string) => show.output(message) };
    const work = Promise.resolve(step.run(ctx, io));
    if (options.stopsCleanly && !step.writes && !step.completesWrites && !(await finishedBeforeStop(work))) {
      // Only reads were under way: leave them, nothing needs finishing.
      state.stopped = true;
      reports.push({ title: step.title, status: 'skipped', reason: `stopped by ${stopRequested()}`, ms: 0 });
      show.skip(`stopped by ${stopRequested()}`);
      return;
    }
    await work;
    reports.push({ title: step.title, status: 'done', ms: Math.round(performance.now() - started) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reports.push({
      title: step.title,
      status: 'failed',
      reason: message,
      ms: Math.round(performance.now() - started),
    });
    throw error;
  }
}

function ownSkip<C>(step: Step<C>, ctx: C): string | false {
  try {
    return step.skip?.(ctx) ?? false;
  } catch {
    return false;
  }
}

/** Whether `work` settles before a stop is requested (its failure is the caller's to see). */
async function finishedBeforeStop(work: Promise<unknown>): Promise<boolean> {
  let unsubscribe = () => {};
  const stop = new Promise<false>((resolve) => {
    unsubscribe = onStop(() => resolve(false));
  });
  try {
    return await Promise.race([
      work.then(
        () => true as const,
        () => true as const,
      ),
      stop,
    ]);
  } finally {
    unsubscribe();
  }
}

/**
 * listr2 prints a failed step's error message itself: made safe in place (the same text the
 * output layer would print; the error keeps its class, code and exit code).
 */
async function shownSafely(work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (error instanceof Error) error.message = printableLines(error.message);
    throw error;
  }
}

/** listr2's line logger (the simple renderer), with every level sent to stderr. */
async function stderrLogger(): Promise<ListrLogger<ListrLogLevels>> {
  const { ListrLogger, ListrLogLevels, ProcessOutput } = await import('listr2');
  const stderr = currentIo().stderr as NodeJS.WriteStream;
  return new ListrLogger({
    useIcons: true,
    toStderr: Object.values(ListrLogLevels),
    processOutput: new ProcessOutput(stderr, stderr),
  });
}
