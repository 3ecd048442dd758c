import { printable } from '../../text/printable.ts';

/**
 * Everything `svc` prints that came from a server (fields, status text, headers, error text) goes
 * through here first: a hostile or broken server must not be able to move the cursor, retitle the
 * terminal, hide text with bidi overrides, or flood the screen. The rule itself is the shared
 * `printable`, in strip mode: an end user needs the message, not the evidence.
 */
export const MAX_SHOWN = 120;

export function sanitize(value: unknown, max = MAX_SHOWN): string {
  return printable(value, { mode: 'strip', max });
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
