import { UsageError } from '../../../errors.ts';
import type { GateMode } from '../gate/decide.ts';
import type { SvcConfig } from './config-file.ts';
import { configFilePath } from './paths.ts';

type Env = Record<string, string | undefined>;

export interface SelectedApi {
  baseUrl: string;
  /** Where it came from, for messages and `svc doctor`. */
  source: '--url' | 'SERVICE_API_URL' | 'config';
}

/**
 * Which API to talk to: `--url` > `SERVICE_API_URL` > the config file.
 * Undefined when none is set; `requireApi` turns that into an error naming all three.
 */
export function selectApi(flag: string | undefined, env: Env, config: SvcConfig): SelectedApi | undefined {
  if (flag !== undefined) return { baseUrl: normalizeBaseUrl(flag, '--url'), source: '--url' };
  const fromEnv = env['SERVICE_API_URL']?.trim();
  if (fromEnv) return { baseUrl: normalizeBaseUrl(fromEnv, 'SERVICE_API_URL'), source: 'SERVICE_API_URL' };
  if (config.url) return { baseUrl: normalizeBaseUrl(config.url, configFilePath(env)), source: 'config' };
  return undefined;
}

export function requireApi(flag: string | undefined, env: Env, config: SvcConfig): SelectedApi {
  const api = selectApi(flag, env, config);
  if (api) return api;
  throw new UsageError('API_URL_MISSING', 'no API selected', {
    hint: `pass --url <base_url>, set SERVICE_API_URL, or run \`svc config set-url <base_url>\` (writes ${configFilePath(env)})`,
  });
}

/** An http(s) base URL without a trailing slash, query or fragment; `from` names the setting. */
export function normalizeBaseUrl(text: string, from: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError('API_URL_INVALID', `${from}: "${text}" is not a URL`, {
      hint: 'give the API base URL, for example https://svc.example.com',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError('API_URL_INVALID', `${from}: "${text}" is not an http or https URL`, {
      hint: 'give the API base URL, for example https://svc.example.com',
    });
  }
  if (url.search || url.hash) {
    throw new UsageError('API_URL_INVALID', `${from}: "${text}" has a query or fragment`, {
      hint: 'give only the base URL: svc appends /api/version and /api/cli/download/...',
    });
  }
  return url.href.replace(/\/+$/, '');
}

/** The gate mode: `SVC_VERSION_GATE` > config `gate` > `hard`. */
export function selectGateMode(env: Env, config: SvcConfig): GateMode {
  const value = env['SVC_VERSION_GATE']?.trim();
  if (!value) return config.gate ?? 'hard';
  if (value === 'hard' || value === 'warn') return value;
  throw new UsageError('GATE_MODE_INVALID', `SVC_VERSION_GATE="${value}" is not "hard" or "warn"`, {
    hint: 'unset it for the default hard gate, or set SVC_VERSION_GATE=warn for the legacy warn-only check',
  });
}

/** `SVC_VERSION_CHECK_TIMEOUT_MS`, a positive integer of milliseconds; default 3000. */
export function selectTimeout(env: Env): number {
  const value = env['SVC_VERSION_CHECK_TIMEOUT_MS']?.trim();
  if (!value) return 3_000;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0 || ms > 600_000) {
    throw new UsageError(
      'TIMEOUT_INVALID',
      `SVC_VERSION_CHECK_TIMEOUT_MS="${value}" is not a number of milliseconds`,
      {
        hint: 'use a positive integer such as 3000, or unset it',
      },
    );
  }
  return ms;
}
