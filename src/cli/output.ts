import { isReleaseError } from '../errors.ts';
import { redact } from '../shared/redact.ts';

/** Everything the command line prints goes through here, so secrets are redacted in one place. */

export function printJson(value: unknown): void {
  process.stdout.write(`${redact(JSON.stringify(value, null, 2))}\n`);
}

export function printLine(text = ''): void {
  process.stdout.write(`${redact(text)}\n`);
}

export function warn(text: string): void {
  process.stderr.write(`warning: ${redact(text)}\n`);
}

/** Print an error for a human (stderr) or, with --json, as `{"error": ...}` on stdout. */
export function printError(error: unknown, json: boolean): void {
  if (isReleaseError(error)) {
    if (json) printJson({ error: error.toJSON() });
    process.stderr.write(`error: ${redact(error.message)}\n`);
    if (error.hint) process.stderr.write(`hint: ${redact(error.hint)}\n`);
    return;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (json)
    printJson({
      error: { code: 'INTERNAL', message: redact(String((error as Error)?.message ?? error)), exitCode: 70 },
    });
  process.stderr.write(`internal error (this is a bug in service-release): ${redact(message)}\n`);
}
