import type * as z from 'zod';
import { ConfigError } from '../errors.ts';
import { artifactRuleProblems } from './artifact-rules.ts';
import { configSchema, type ReleaseConfig } from './schema.ts';

/**
 * Validate a raw config object. Every problem is reported at once as `path: message`, unknown
 * keys included, so a user fixes the file in one pass; then the rules across fields (a role used
 * twice, one image for two artifacts).
 */
export function validateConfig(raw: unknown, where: string): ReleaseConfig {
  const result = configSchema.safeParse(withoutSchemaLine(raw ?? {}));
  const problems = result.success
    ? [...artifactRuleProblems(result.data.artifacts), ...deploymentServiceProblems(result.data)]
    : formatIssues(result.error);
  if (result.success && problems.length === 0) return result.data;
  throw new ConfigError(`invalid configuration in ${where}:`, problems, {
    hint: 'fix the keys listed above; every key is in docs/reference/config.md',
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
