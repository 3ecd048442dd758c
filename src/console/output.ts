import { INTERNAL, isReleaseError } from '../errors.ts';
import { printableLines } from '../text/printable.ts';
import { redact } from '../text/redact.ts';

/**
 * How a program of ours prints: results on stdout, everything else on stderr (so a script reading
 * a command's output never sees warnings), credentials redacted on every line. `release`, the
 * build scripts and `svc` differ only in the prefix of their stderr lines and whom a bug is
 * reported to. Every line is also made safe for a terminal and a CI log (`printableLines`): file
 * names, registry answers and child processes' errors reach it, and none may repaint the screen
 * or be read as a workflow command.
 */
export interface Output {
  /** A result line on stdout. */
  line(text?: string): void;
  /** One JSON document on stdout. */
  json(value: unknown): void;
  /** A message on stderr: `<prefix>error: ...`. */
  say(level: 'error' | 'warning' | 'notice', text: string): void;
  /** An error for a human (stderr) and, with `json`, as `{"error": ...}` on stdout. Returns its exit code. */
  error(error: unknown, json: boolean): number;
}

/** Where a program's output goes; asked on every write, so one process may serve several runs. */
export type OutputStreams = () => {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
};

export function outputFor(program: { prefix: string; bug: string; streams?: OutputStreams }): Output {
  const streams: OutputStreams = program.streams ?? (() => process);
  const safe = (text: string) => printableLines(redact(text));
  const line = (text = '') => void streams().stdout.write(`${safe(text)}\n`);
  const json = (value: unknown) => line(JSON.stringify(value, null, 2));
  const say = (level: string, text: string) =>
    void streams().stderr.write(`${program.prefix}${level}: ${safe(text)}\n`);
  return {
    line,
    json,
    say,
    error(error, asJson) {
      if (isReleaseError(error)) {
        if (asJson) json({ error: error.toJSON() });
        say('error', error.message);
        if (error.hint) streams().stderr.write(`hint: ${safe(error.hint)}\n`);
        return error.exitCode;
      }
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      if (asJson)
        json({
          error: { code: INTERNAL, message: String((error as Error)?.message ?? error), exitCode: 70 },
        });
      say('error', `internal error (${program.bug}): ${message}`);
      return 70;
    },
  };
}
