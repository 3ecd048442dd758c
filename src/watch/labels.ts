/** Longest label value exported; a version or digest read from a server is cut to this. */
export const MAX_LABEL_LENGTH = 128;

/**
 * A label value read from outside (a version a server reports, a deployment name) made safe and
 * bounded: printable ASCII only, at most MAX_LABEL_LENGTH characters, never empty. A hostile
 * server cannot blow up the scrape or smuggle newlines into it.
 */
export function labelValue(value: string | undefined, fallback = 'none'): string {
  if (value === undefined || value === '') return fallback;
  const clean = value.replace(/[^\x20-\x7e]/g, '_');
  return clean.length > MAX_LABEL_LENGTH ? `${clean.slice(0, MAX_LABEL_LENGTH - 1)}~` : clean;
}
