import { RuleError } from '../errors.ts';
import { satisfiesMinimum } from '../version/minimum.ts';
import { artifactWithRole } from './artifacts.ts';
import type { ReleaseConfig } from './schema.ts';

/** The label a built API image carries its `min_cli_version` in (read by `release upgrade`). */
export const MIN_CLI_LABEL = 'io.service-release.min-cli-version';

/**
 * The `min_cli_version` this project's API serves, as the config declares it: the api artifact's
 * `minCliVersion`, else `api.minCliVersion`. Undefined when neither says: the toolkit never
 * assumes another service's minimum (the reference API's is the reference's own, declared by
 * `referenceArtifacts()`), since guessing would block a project's CLI wrongly.
 */
export function ownMinimum(
  config: Pick<ReleaseConfig, 'api' | 'artifacts'>,
): { min: string; from: string } | undefined {
  const api = artifactWithRole(config, 'api');
  if (api?.minCliVersion) return { min: api.minCliVersion, from: `artifacts.${api.name}.minCliVersion` };
  const configured = config.api?.minCliVersion;
  return configured ? { min: configured, from: 'api.minCliVersion in the config' } : undefined;
}

/** Why the minimum check does not apply, or false when it does. */
export function noOwnMinimum(config: Pick<ReleaseConfig, 'api' | 'artifacts'>): string | false {
  return ownMinimum(config)
    ? false
    : "the config declares no min_cli_version for its API (the api artifact's minCliVersion)";
}

/**
 * Refuse to build or release a CLI that the API of the same release blocks: `v0.4.0`
 * against an API whose `min_cli_version` is 1.0.0 would ship a gate that stops its own CLI. A
 * version that cannot be compared (a describe of no tag, a hash) passes: the gate lets it run too.
 */
export function checkOwnMinimum(
  cliVersion: string,
  config: Pick<ReleaseConfig, 'api' | 'artifacts'>,
  doing: string,
): void {
  const own = ownMinimum(config);
  if (!own) return;
  const { min, from } = own;
  const result = satisfiesMinimum(cliVersion, min);
  if (result.verdict !== 'fail') return;
  throw new RuleError(
    'CLI_BELOW_OWN_MINIMUM',
    `refusing to ${doing}: its CLI ${cliVersion} is below ${min}, the min_cli_version its own API serves (${from}); every svc command would be blocked by that API`,
    {
      hint: `release ${min} or later (tag v${min}), or lower the API's minimum (${from}) in a new API build`,
    },
  );
}
