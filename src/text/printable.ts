// C0 and C1 controls, DEL, and the Unicode bidi marks, overrides and isolates ("Trojan Source").
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export interface PrintableOptions {
  /**
   * `escape` (default): write unsafe characters as visible `\uXXXX`, for reports an operator
   * reads closely (they see that something odd was there). `strip`: drop them, for the one-line
   * messages `svc` shows an end user.
   */
  mode?: 'escape' | 'strip';
  /** Longer values are cut, with an ellipsis and how much was cut. */
  max?: number;
}

/**
 * Make text that came from outside (an environment variable, a server, a file) safe for a
 * terminal and a report line: no escape sequence can repaint or retitle the screen, no bidi
 * override can hide text, and a huge value cannot flood it. The one sanitiser of the project:
 * the toolkit, the reference servers and the `svc` bundle all use it.
 */
export function printable(value: unknown, options: PrintableOptions = {}): string {
  const { mode = 'escape', max = 128 } = options;
  const text = typeof value === 'string' ? value : String(value);
  const safe =
    mode === 'strip'
      ? text.replace(UNSAFE, '')
      : text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > max ? `${safe.slice(0, max)}… (${safe.length - max} more characters)` : safe;
}

// As UNSAFE, less the tab and the newline: what a block of several lines may keep.
const UNSAFE_IN_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text of several lines for a terminal or a CI log, as the output layer writes every line: the
 * controls `printable` escapes are shown, not obeyed (tab and newline kept), and no line can be
 * read as a CI runner's command. GitHub's runner takes a line whose first non-blank characters are
 * `::` as a workflow command (`::add-mask::`, `::set-output`, `::stop-commands::`), and `##[` (its
 * older form) or Azure's `##vso[` anywhere in a line; one such colon or hash is written as
 * `\u003a` / `\u0023`, so the line reads the same to a person and means nothing to the runner.
 * A value escaped this way inside a JSON document stays the same value. Idempotent.
 */
export function printableLines(text: string): string {
  return text
    .replace(UNSAFE_IN_LINES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/^([^\S\n]*):(?=:)/gm, '$1\\u003a')
    .replace(/#(?=#(?:vso)?\[)/g, '\\u0023');
}
