import { printable } from '../../text/printable.ts';
import { LONGEST_VERSION } from '../../version/parse.ts';
import type { ProbeResult } from '../types.ts';

/**
 * A version a server reported, ready for the checks and the report: made printable, and when it
 * is longer than any version can be, cut for display with its real length kept, so the check
 * judges the value ("60000 characters long"), not the ellipsis of its display form.
 */
export function versionReading(value: string): Pick<ProbeResult, 'version' | 'versionLength'> {
  if (value.length <= LONGEST_VERSION) return { version: printable(value, { max: LONGEST_VERSION }) };
  return { version: printable(value, { max: 40 }), versionLength: value.length };
}
