import { printError } from '../commands/output.ts';
import { EXIT, isReleaseError } from '../errors.ts';
import { systemErrorAsReleaseError } from './system-error.ts';

/**
 * What a run that threw exits with, its error printed (with `--json`, as a document on stdout).
 * The one place an error becomes a code, for both ways in (main.ts, stamp-main.ts).
 */
export function failureExitCode(thrown: unknown, argv: readonly string[]): number {
  const error = systemErrorAsReleaseError(thrown) ?? thrown;
  // A command that has already printed its verdict (verify's report, one JSON document) only
  // needs its exit code; printing the error too would add a second document to stdout.
  if (isReleaseError(error) && error.reported) return error.exitCode;
  printError(error, argv.includes('--json'));
  return (error as { exitCode?: number }).exitCode ?? EXIT.internal;
}
