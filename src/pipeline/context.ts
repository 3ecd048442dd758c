import type { ReleaseConfig } from '../config/schema.ts';

/** What every command's context carries. Commands extend it with their own fields. */
export interface BaseContext {
  /** The project being released (`--cwd`). */
  cwd: string;
  config: ReleaseConfig;
  /** Directory relative config paths resolve against (the config file's, else cwd). */
  configDir: string;
  /** The environment, passed in rather than read from `process.env` so tests can set it. */
  env: Record<string, string | undefined>;
  /** `--dry-run`: compute and print the plan, write nothing. */
  dryRun: boolean;
  /** `--json`: machine output on stdout, nothing else there. */
  json: boolean;
  /** Warnings collected for the end of the run (stderr, or the `--json` document). */
  warnings: string[];
}
