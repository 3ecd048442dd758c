/**
 * The error hierarchy. Every failure the toolkit expects carries a stable `code` (for scripts and
 * `--json`), the exit code of its family, and a hint that says what to do next. Only the command
 * line turns an error into an exit code (see `src/cli/main.ts`).
 *
 * Exit codes: 0 success, 1 a rule refused or drift found, 2 usage or config error,
 * 3 an outside system failed (registry, Docker, network), 70 internal error; 130 and 143 after
 * SIGINT and SIGTERM (128 + the signal's number, as a shell reports a process killed by it).
 */
export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  external: 3,
  internal: 70,
  sigint: 130,
  sigterm: 143,
} as const;

/**
 * The codes that code elsewhere acts on (a retry that gives up, a step that rephrases, a report
 * that names an unexpected failure), as constants beside the classes that carry them: renaming one
 * is then a compile error, not a comparison that silently stops matching. Other codes are for
 * people and scripts reading `--json`, and stay written where they are thrown.
 */
export const CONFIG_INVALID = 'CONFIG_INVALID';
/** An error that is not a ReleaseError: a bug. */
export const INTERNAL = 'INTERNAL';
/** The store cannot delete a tag, so an undo cannot remove one it created (ExternalError). */
export const TAG_DELETE_UNSUPPORTED = 'TAG_DELETE_UNSUPPORTED';
/** A CLI archive the toolkit cannot read or re-stamp (UsageError). */
export const CLI_ARCHIVE_INVALID = 'CLI_ARCHIVE_INVALID';
/** No signing key was given (UsageError). */
export const SIGNING_KEY_MISSING = 'SIGNING_KEY_MISSING';

export interface ErrorDetails {
  hint?: string;
  cause?: unknown;
}

export abstract class ReleaseError extends Error {
  abstract readonly exitCode: number;
  readonly code: string;
  readonly hint: string | undefined;
  /**
   * The command already printed this outcome in its own report (verify's table, one `--json`
   * document): the entry point then only sets the exit code and prints nothing more.
   */
  reported = false;

  constructor(code: string, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = details.hint;
  }

  toJSON(): { code: string; message: string; hint?: string; exitCode: number } {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint ? { hint: this.hint } : {}),
      exitCode: this.exitCode,
    };
  }
}

/** Bad flags, a malformed input value: the caller must change what they asked for. */
export class UsageError extends ReleaseError {
  readonly exitCode = EXIT.usage;
}

/** The configuration file is missing, unreadable or invalid. */
export class ConfigError extends ReleaseError {
  readonly exitCode = EXIT.usage;
  constructor(
    message: string,
    readonly problems: string[] = [],
    details: ErrorDetails = {},
  ) {
    super(CONFIG_INVALID, problems.length ? `${message}\n  ${problems.join('\n  ')}` : message, details);
  }
}

/** A release rule refused the request (wrong channel for the version, immutable tag, drift...). */
export class RuleError extends ReleaseError {
  readonly exitCode = EXIT.refused;
}

/** An outside system failed: registry, Docker engine, network, a missing program. */
export class ExternalError extends ReleaseError {
  readonly exitCode = EXIT.external;
}

/** A bug: something that should not happen did. */
export class InternalError extends ReleaseError {
  readonly exitCode = EXIT.internal;
}

/** The signals a run stops for cleanly: what it was doing is finished or undone first. */
export type StopSignal = 'SIGINT' | 'SIGTERM';
/** Code of `InterruptedError`. */
export const INTERRUPTED = 'INTERRUPTED';

/**
 * The run was stopped by SIGINT (Ctrl-C) or SIGTERM after the writes under way were finished or
 * undone. `outcome` says which, for people and for `--json`; the exit code is 130 or 143.
 */
export class InterruptedError extends ReleaseError {
  readonly exitCode: number;
  /** What the command had done when it stopped, in its own terms (set by the command). */
  outcome: Record<string, unknown> = {};

  constructor(
    readonly signal: StopSignal,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(INTERRUPTED, message, details);
    this.exitCode = signal === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
  }

  override toJSON() {
    return { ...super.toJSON(), signal: this.signal, ...this.outcome };
  }
}

export function isReleaseError(error: unknown): error is ReleaseError {
  return error instanceof ReleaseError;
}
