import type { VersionProbe } from '../gate/version-document.ts';

export interface Finding {
  /** Stable name for scripts (`--json`). */
  id: string;
  problem: string;
  fix: string;
  details?: string[];
}

/** What the API's side of the troubleshooting table says, from one probe. Pure. */
export function findingsAboutApi(
  baseUrl: string | undefined,
  probe: VersionProbe | undefined,
  configPath: string,
): Finding[] {
  if (!baseUrl) {
    return [
      {
        id: 'no-api',
        problem: 'no API is selected, so the server side cannot be checked',
        fix: `svc config set-url <api_base_url>   (writes ${configPath}; or pass --url, or set SERVICE_API_URL)`,
      },
    ];
  }
  if (!probe || probe.kind === 'failed') {
    return [
      {
        id: 'api-unreadable',
        problem: `the version document of ${baseUrl} could not be read: ${probe?.reason ?? 'no answer'}`,
        fix: 'check the URL and that the API is running; GET <base_url>/api/version must return {"version", "min_cli_version"}',
      },
    ];
  }
  if (probe.version === undefined || probe.version === 'unknown') {
    return [
      {
        id: 'api-version-unknown',
        problem: `the API at ${baseUrl} reports its version as ${probe.version === undefined ? '(missing)' : '"unknown"'}: SERVICE_VERSION is unset in its container and it has no source checkout`,
        fix: 'set SERVICE_VERSION to the release tag on the API container (release stamp writes it to dist/release.env) and restart it',
      },
    ];
  }
  return [];
}
