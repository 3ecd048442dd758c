import { isReleaseError } from '../../errors.ts';
import { redact } from '../../shared/redact.ts';

/**
 * svc's printing. Results go to stdout; the gate, warnings and errors go to stderr, so a script
 * reading a command's output never sees them. Credentials in URLs are redacted everywhere.
 */
export function out(text: string): void {
  process.stdout.write(`${redact(text)}\n`);
}

export function outJson(value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

export function say(level: 'error' | 'warning' | 'notice', text: string): void {
  process.stderr.write(`svc: ${level}: ${redact(text)}\n`);
}

/** Print an error; with `--json` also as `{"error": ...}` on stdout. Returns its exit code. */
export function reportError(error: unknown, json: boolean): number {
  if (isReleaseError(error)) {
    if (json) outJson({ error: error.toJSON() });
    say('error', error.message);
    if (error.hint) process.stderr.write(`hint: ${redact(error.hint)}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (json)
    outJson({
      error: { code: 'INTERNAL', message: String((error as Error)?.message ?? error), exitCode: 70 },
    });
  say('error', `internal error (a bug in svc, please report it): ${message}`);
  return 70;
}

/** A progress line on stderr (long-running commands such as update). */
export function progress(text: string): void {
  process.stderr.write(`svc: ${redact(text)}\n`);
}
