import { parseCore } from '../../version/parse.ts';
import type { Finding, ProbeResult } from '../types.ts';

/** `min_cli_version` must be strict X.Y.Z (spec section 2); otherwise no CLI can be judged. */
export function checkMinCliVersion(results: ProbeResult[]): Finding[] {
  const api = results.find((r) => r.name === 'api' && r.version !== undefined);
  if (!api || (api.minCliVersion !== undefined && parseCore(api.minCliVersion))) return [];
  return [
    {
      code: 'MIN_CLI_VERSION_INVALID',
      message:
        api.minCliVersion === undefined
          ? `the API's version document has no min_cli_version, so no CLI can be checked against it`
          : `the API's min_cli_version "${api.minCliVersion}" is not X.Y.Z, so no CLI can be checked against it`,
      // Any service's API, not only the reference one: the constant lives in its own source.
      fix: 'serve min_cli_version as X.Y.Z in GET /api/version (a constant in the API source, e.g. MIN_CLI_VERSION) and ship a new API build',
      severity: 'drift',
      artifact: 'api',
      source: api.source,
    },
  ];
}
