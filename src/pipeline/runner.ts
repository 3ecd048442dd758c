import { Listr, ListrLogger, ListrLogLevels, ProcessOutput } from 'listr2';
import { currentIo } from '../util/cli-io.ts';
import type { Step, StepReport } from './step.ts';

export interface RunOptions {
  /** Machine output requested: no renderer at all, stdout stays clean for the JSON document. */
  json: boolean;
  env: Record<string, string | undefined>;
  /** `--dry-run`: steps that declare `writes` are skipped with the reason "dry run". */
  dryRun?: boolean;
  /** Collect the reports here as steps finish, so a caller still has them when a step throws. */
  reports?: StepReport[];
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
  const reports: StepReport[] = options.reports ?? [];
  const { stderr } = currentIo();
  const interactive = Boolean(stderr.isTTY) && !options.env['CI'] && !options.json;
  const list = new Listr(
    steps.map((step) => ({
      title: step.title,
      task: async (_: unknown, task: { output: string; skip(message?: string): void }) => {
        const started = performance.now();
        // The step's own reason first: it says the step does not apply at all, which is more
        // useful to read in a dry run than "dry run".
        const reason = step.skip?.(ctx) || (step.writes && options.dryRun ? DRY_RUN : false);
        if (reason) {
          reports.push({ title: step.title, status: 'skipped', reason, ms: 0 });
          task.skip(reason);
          return;
        }
        try {
          await step.run(ctx, { progress: (message) => (task.output = message) });
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
      },
    })),
    {
      concurrent: false,
      exitOnError: true,
      renderer: options.json ? 'silent' : interactive ? 'default' : 'simple',
      fallbackRenderer: 'simple',
      // Every renderer writes to stderr: stdout is the command's result (a table, a JSON document).
      rendererOptions: interactive
        ? { processOutput: new ProcessOutput(stderr as NodeJS.WriteStream, stderr as NodeJS.WriteStream) }
        : { logger: stderrLogger() },
      fallbackRendererOptions: { logger: stderrLogger() },
    } as never,
  );
  await list.run();
  return reports;
}

/** listr2's line logger (the simple renderer), with every level sent to stderr. */
function stderrLogger(): ListrLogger<ListrLogLevels> {
  const stderr = currentIo().stderr as NodeJS.WriteStream;
  return new ListrLogger({
    useIcons: true,
    toStderr: Object.values(ListrLogLevels),
    processOutput: new ProcessOutput(stderr, stderr),
  });
}
