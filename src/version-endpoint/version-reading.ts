import { printable } from '../text/printable.ts';
import { LONGEST_VERSION } from '../version/parse.ts';

/** A version as a server reported it, ready to compare and show. */
export interface VersionReading {
  version: string;
  /** Set when the value was cut for display: its real length. */
  versionLength?: number;
}

/**
 * A version a server reported, ready for the checks and the report: made printable, and when it
 * is longer than any version can be, cut for display with its real length kept, so the check
 * judges the value ("60000 characters long"), not the ellipsis of its display form.
 */
export function versionReading(value: string): VersionReading {
  if (value.length <= LONGEST_VERSION) return { version: printable(value, { max: LONGEST_VERSION }) };
  return { version: printable(value, { max: 40 }), versionLength: value.length };
}
