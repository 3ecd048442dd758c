import { RuleError } from '../errors.ts';
import { MIN_CLI_VERSION } from '../service/api/min-cli-version.ts';
import { satisfiesMinimum } from '../version/minimum.ts';
import type { ReleaseConfig } from './schema.ts';

/** The `min_cli_version` this project's API serves: `api.minCliVersion`, else the reference API's. */
export function ownMinimum(config: Pick<ReleaseConfig, 'api'>): { min: string; from: string } {
  const configured = config.api?.minCliVersion;
  return configured
    ? { min: configured, from: 'api.minCliVersion in the config' }
    : {
        min: MIN_CLI_VERSION,
        from: "the reference API's MIN_CLI_VERSION (src/service/api/min-cli-version.ts)",
      };
}

/**
 * Refuse to build or release a CLI that the API of the same release blocks: `v0.4.0`
 * against an API whose `min_cli_version` is 1.0.0 would ship a gate that stops its own CLI. A
 * version that cannot be compared (a describe of no tag, a hash) passes: the gate lets it run too.
 */
export function checkOwnMinimum(cliVersion: string, config: Pick<ReleaseConfig, 'api'>, doing: string): void {
  const { min, from } = ownMinimum(config);
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
