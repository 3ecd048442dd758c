import { schemeOf } from '../cli-version/read-own-version.ts';
import { satisfiesMinimumIn, type VersionScheme } from '../cli-version/version-scheme.ts';
import { RuleError } from '../errors.ts';
import { artifactWithRole, cliArtifact } from './artifacts.ts';
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
  const ownLine = cliArtifact(config)?.version === 'own';
  const scheme = cliScheme(config);
  const result = satisfiesMinimumIn(scheme, cliVersion, min);
  if (result.verdict !== 'fail') return;
  throw new RuleError(
    'CLI_BELOW_OWN_MINIMUM',
    `refusing to ${doing}: its CLI ${cliVersion} is below ${min}, the min_cli_version its own API serves (${from}${scheme === 'pep440' ? ', compared as PEP 440' : ''}); every ${ownLine ? 'CLI' : 'svc'} command would be blocked by that API`,
    {
      hint: ownLine
        ? `raise the CLI's own version to ${min} or later where it declares it, or lower the API's minimum (${from}) in a new API build`
        : `release ${min} or later (tag v${min}), or lower the API's minimum (${from}) in a new API build`,
    },
  );
}

/**
 * How the config's CLI orders its versions against the minimum: PEP 440 for a CLI on its own line
 * declared in a pyproject (or said so), else semver (the service's line, an npm CLI).
 */
export function cliScheme(config: Pick<ReleaseConfig, 'artifacts'>): VersionScheme {
  const cli = cliArtifact(config);
  return cli?.version === 'own' ? schemeOf(cli.own) : 'semver';
}
