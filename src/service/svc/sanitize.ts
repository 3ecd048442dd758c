/**
 * Everything `svc` prints that came from a server (fields, status text, headers, error text) goes
 * through here first: a hostile or broken server must not be able to move the cursor, retitle the
 * terminal, hide text with bidi overrides, or flood the screen.
 */
// C0 and C1 controls, DEL, and the Unicode bidi overrides/isolates ("Trojan Source").
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const MAX_SHOWN = 120;

export function sanitize(value: unknown, max = MAX_SHOWN): string {
  const text = (typeof value === 'string' ? value : String(value)).replace(UNSAFE, '');
  return text.length > max ? `${text.slice(0, max)}... (${text.length - max} more characters)` : text;
}

/** A value for a message: sanitised and quoted, so empty or odd strings stay visible. */
export function shown(value: unknown, max = MAX_SHOWN): string {
  return typeof value === 'string' ? `"${sanitize(value, max)}"` : sanitize(describeType(value), max);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'undefined') return 'missing';
  return `${typeof value} ${String(value)}`;
}
