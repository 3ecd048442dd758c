// C0 and C1 controls, DEL, and the Unicode bidi marks, overrides and isolates ("Trojan Source").
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Make text that came from outside (an environment variable, a server, a file) safe for a
 * terminal and a report line: control and bidi characters are written as visible `\uXXXX`
 * escapes, so an escape sequence cannot repaint or retitle the operator's screen and the reader
 * still sees that something odd was there; very long values are cut.
 */
export function printable(text: string, maxLength = 128): string {
  const escaped = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > maxLength ? `${escaped.slice(0, maxLength)}…` : escaped;
}
