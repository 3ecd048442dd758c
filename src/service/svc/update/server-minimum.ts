import { RuleError } from '../../../errors.ts';
import { satisfiesMinimum } from '../../../version/minimum.ts';
import { probeVersion } from '../gate/probe.ts';
import { progress } from '../output.ts';

/**
 * Refuse an archive the same server would block: when the API's `min_cli_version` is
 * above the version of the svc it serves, installing it would replace a working CLI with one every
 * gated command refuses. Checked after the trial run (so the archive's own version is known) and
 * before npm runs, so the installed svc stays as it was. A version document that cannot be read
 * proves nothing: the update goes on, as the gate does.
 */
export async function refuseBelowServerMinimum(options: {
  baseUrl: string;
  archiveVersion: string;
  cliVersion: string;
  timeoutMs: number;
}): Promise<void> {
  const probe = await probeVersion(options.baseUrl, {
    timeoutMs: options.timeoutMs,
    cliVersion: options.cliVersion,
  });
  if (probe.kind !== 'document') {
    progress(
      `could not read ${options.baseUrl}/api/version (${probe.reason}); not checked against its minimum`,
    );
    return;
  }
  const verdict = satisfiesMinimum(options.archiveVersion, probe.minCliVersion);
  if (verdict.verdict !== 'fail') return;
  throw new RuleError(
    'UPDATE_BELOW_MINIMUM',
    `${options.baseUrl} serves svc ${options.archiveVersion}, below its own min_cli_version ${probe.minCliVersion}: the server would block the CLI it serves, so it was not installed (svc ${options.cliVersion} is unchanged)`,
    {
      hint: `the server's CLI archive is out of step with its API: tell its operator (release build refuses such a build); meanwhile keep svc ${options.cliVersion}, or install a release at or above ${probe.minCliVersion} another way`,
    },
  );
}
