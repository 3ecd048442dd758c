import { parseCore } from '../../version/parse.ts';
import type { Finding, ProbeResult } from '../types.ts';

/**
 * `min_cli_version` must be strict X.Y.Z (spec section 2); otherwise no CLI can be judged. A
 * service whose config declares no CLI (`artifacts.cli: false`) has nothing to judge by it: its
 * API leaving the field out is said (a notice), not drift, or such a service could never be in
 * step. A value that is there but malformed is drift either way.
 */
export function checkMinCliVersion(results: ProbeResult[], options: { noCli?: boolean } = {}): Finding[] {
  const api = results.find((r) => r.name === 'api' && r.version !== undefined);
  if (!api || (api.minCliVersion !== undefined && parseCore(api.minCliVersion))) return [];
  const missing = api.minCliVersion === undefined;
  return [
    {
      code: 'MIN_CLI_VERSION_INVALID',
      message: missing
        ? `the API's version document has no min_cli_version, so no CLI can be checked against it${options.noCli ? ' (the config declares no CLI)' : ''}`
        : `the API's min_cli_version "${api.minCliVersion}" is not X.Y.Z, so no CLI can be checked against it`,
      // Any service's API, not only the reference one: the constant lives in its own source.
      fix: 'serve min_cli_version as X.Y.Z in GET /api/version (a constant in the API source, e.g. MIN_CLI_VERSION) and ship a new API build',
      severity: missing && options.noCli ? 'notice' : 'drift',
      artifact: 'api',
      source: api.source,
    },
  ];
}
