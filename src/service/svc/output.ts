import { outputFor } from '../../console/output.ts';
import { redact } from '../../text/redact.ts';

/**
 * svc's printing. Results go to stdout; the gate, warnings and errors go to stderr, so a script
 * reading a command's output never sees them. Credentials in URLs are redacted everywhere.
 */
const output = outputFor({ prefix: 'svc: ', bug: 'a bug in svc, please report it' });

export const out = (text: string): void => output.line(text);
export const outJson = output.json;
export const say = output.say;
/** Print an error; with `--json` also as `{"error": ...}` on stdout. Returns its exit code. */
export const reportError = output.error;

/** A progress line on stderr (long-running commands such as update). */
export function progress(text: string): void {
  process.stderr.write(`svc: ${redact(text)}\n`);
}
