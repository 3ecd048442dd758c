/**
 * One step of a pipeline (goreleaser's "pipe", np's task): a title, an optional skip that returns
 * the reason it does not apply (a skip is not a failure), and the work.
 */
export interface Step<C> {
  title: string;
  /**
   * The step changes something outside the process (files, tags, signatures, CI outputs). The
   * runner, not the step, skips writing steps under `--dry-run`, so a dry run cannot forget one.
   */
  writes?: true;
  /**
   * The step ends a group of writes an earlier step began (settling `latest` after the tags): in
   * a run that stops cleanly it still runs after SIGINT or SIGTERM once a writing step has run.
   */
  completesWrites?: true;
  skip?(ctx: C): string | false;
  run(ctx: C, io: StepIO): Promise<void> | void;
}

/** What a running step may say while it works: progress lines shown under its title. */
export interface StepIO {
  progress(message: string): void;
}

export interface StepReport {
  title: string;
  status: 'done' | 'skipped' | 'failed';
  /** The skip reason, or the failure's message. */
  reason?: string;
  ms: number;
}
