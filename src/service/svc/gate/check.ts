import { isOrdered } from '../../../version/kinds.ts';
import { parseVersion } from '../../../version/parse.ts';
import { sanitize } from '../sanitize.ts';
import { decideCompatibility, type GateDecision, type GateMode } from './decide.ts';
import { DEFAULT_TIMEOUT_MS, probeVersion } from './probe.ts';

export interface CompatibilityOptions {
  /** The API base URL (`https://svc.example.com`); a trailing slash is ignored. */
  baseUrl: string;
  /** The CLI's own version, as baked in at build time. */
  cliVersion: string;
  /** Total deadline of the check; default 3000 ms. */
  timeoutMs?: number;
  /** `hard` (default) blocks a CLI below the minimum; `warn` only warns (spec rule 7.5). */
  mode?: GateMode;
}

/**
 * The `svc` compatibility gate as a library: one `GET {baseUrl}/api/version` with a total
 * deadline, a 64 KiB body cap and at most 3 redirects, then `decideCompatibility`. Never throws
 * for anything the server does; `decision.run` says whether the command may run and
 * `decision.messages` what to print on stderr. A development build (`unknown`, a bare hash) is not
 * checked and makes no request.
 */
export async function checkCliCompatibility(options: CompatibilityOptions): Promise<GateDecision> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const mode = options.mode ?? 'hard';
  const cliIsOrdered = isOrdered(parseVersion(options.cliVersion));
  const probe = cliIsOrdered
    ? await probeVersion(baseUrl, {
        timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        cliVersion: sanitize(options.cliVersion),
      })
    : undefined;
  return decideCompatibility({ baseUrl, cliVersion: options.cliVersion, probe, mode });
}
