import type * as z from 'zod';
import { ConfigError } from '../errors.ts';
import { artifactRuleProblems } from './artifact-rules.ts';
import { webClients } from './artifacts.ts';
import { configSchema, type ReleaseConfig } from './schema.ts';

/**
 * Validate a raw config object. Every problem is reported at once as `path: message`, unknown
 * keys included, so a user fixes the file in one pass; then the rules across fields (a role used
 * twice, one image for two artifacts).
 */
export function validateConfig(raw: unknown, where: string): ReleaseConfig {
  // Nothing at all (an empty file, a module without a default export) is the defaults; `null`, a
  // list or a string is a mistake to name, never the defaults run silently.
  const given = raw === undefined ? {} : raw;
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    throw new ConfigError(
      `invalid configuration in ${where}:`,
      [
        `(root): expected an object of settings, got ${given === null ? 'null' : Array.isArray(given) ? 'a list' : typeof given}`,
      ],
      {
        hint: 'the config is one object: { "registry": ..., "artifacts": { ... } } (docs/reference/config.md)',
      },
    );
  const reserved = reservedKeyProblems(given);
  const result = configSchema.safeParse(withoutSchemaLine(given));
  const problems = [
    ...reserved,
    ...(result.success
      ? [
          ...artifactRuleProblems(result.data.artifacts),
          ...deploymentServiceProblems(result.data),
          ...deploymentWebProblems(result.data),
        ]
      : formatIssues(result.error)),
  ];
  if (result.success && problems.length === 0) return result.data;
  throw new ConfigError(`invalid configuration in ${where}:`, problems, {
    hint: 'fix the keys listed above; every key is in docs/reference/config.md',
  });
}

// Keys that name an object's prototype machinery in JavaScript: as a key of ours (an artifact
// named `constructor`) a lookup of a name nobody declared would find the machinery, and
// `__proto__` is dropped, not kept, by whatever copies the object. Refused by name instead.
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

/** Every key of `raw`, at any depth, that is one of RESERVED (read before any copy loses it). */
function reservedKeyProblems(raw: object, at = '', depth = 0): string[] {
  if (depth > 32) return [];
  return Object.keys(raw).flatMap((key) => {
    const path = at ? `${at}.${key}` : key;
    const value = (raw as Record<string, unknown>)[key];
    const here = RESERVED.has(key) ? [`${path}: "${key}" is not a name a config may use`] : [];
    const below =
      value && typeof value === 'object' && Object.hasOwn(raw, key)
        ? reservedKeyProblems(value, path, depth + 1)
        : [];
    return [...here, ...below];
  });
}

/** `deployments[].services`: a key beside api, worker and web names an image artifact of the config. */
function deploymentServiceProblems(config: ReleaseConfig): string[] {
  return config.deployments.flatMap((deployment, index) =>
    Object.keys(deployment.services ?? {})
      .filter((key) => !['api', 'worker', 'web'].includes(key) && config.artifacts[key]?.kind !== 'image')
      .map(
        (key) =>
          `deployments.${index}.services.${key}: expected api, worker, web or the name of an image artifact`,
      ),
  );
}

/**
 * `deployments[].webUrls` names web artifacts of the config; `webUrl` beside it would leave which
 * web client it is unsaid.
 */
function deploymentWebProblems(config: ReleaseConfig): string[] {
  const webs = webClients(config).map((a) => a.name);
  return config.deployments.flatMap((deployment, index) => {
    const at = `deployments.${index}`;
    if (!deployment.webUrls) return [];
    return [
      ...(deployment.webUrl
        ? [`${at}.webUrl: give the web clients' URLs in webUrls only (leave webUrl out)`]
        : []),
      ...Object.keys(deployment.webUrls)
        .filter((key) => !webs.includes(key))
        .map(
          (key) =>
            `${at}.webUrls.${key}: expected the name of a web artifact (${webs.join(', ') || 'the config declares none'})`,
        ),
    ];
  });
}

export function formatIssues(error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String).join('.') || '(root)';
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${at === '(root)' ? key : `${at}.${key}`}: unknown key`);
    }
    return [`${at}: ${issue.message}`];
  });
}

/**
 * `"$schema"` at the top of a release.config.json is for editors (json-schema.ts; `release init
 * --format json` writes it): not a key of the config, so not an unknown one.
 */
function withoutSchemaLine(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('$schema' in raw)) return raw;
  const { $schema: _, ...rest } = raw as Record<string, unknown>;
  return rest;
}
