/** The reasons a probe fails, as a small fixed set: a metric label must not carry free text. */
export const FAILURE_REASONS = [
  'timeout',
  'deadline',
  'refused',
  'dns',
  'reset',
  'bad_http',
  'too_large',
  'http_status',
  'bad_document',
  'other',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Classify a probe's error message (verify's wording, see http/bounded-get.ts) into one reason. */
export function failureReason(error: string): FailureReason {
  if (/no answer within/.test(error)) return 'timeout';
  if (/cancelled|deadline/.test(error)) return 'deadline';
  if (/connection refused/.test(error)) return 'refused';
  if (/host name not found/.test(error)) return 'dns';
  if (/reset/.test(error)) return 'reset';
  if (/not valid HTTP/.test(error)) return 'bad_http';
  if (/larger than/.test(error)) return 'too_large';
  if (/\bHTTP \d{3}\b/.test(error)) return 'http_status';
  if (/JSON|version|document|meta tag/i.test(error)) return 'bad_document';
  return 'other';
}
