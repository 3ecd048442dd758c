import { UsageError } from '../../errors.ts';
import type { VerifyRun } from './verify-setup.ts';

/** `--vsa <file|store>`: verification summaries of `--expect`'s release, not a deployment. */
export async function verifySummaries({ flags, base, expect }: VerifyRun): Promise<void> {
  if (flags.url || flags.all || flags.attest)
    throw new UsageError('VERIFY_VSA_WITH_TARGET', '--vsa checks summaries, not a live deployment', {
      hint: 'release verify --vsa <file|store> --expect <tag> (drop --url, --all and --attest)',
    });
  if (expect === undefined)
    throw new UsageError('VERIFY_VSA_NO_EXPECT', '--vsa needs the release the summaries must be about', {
      hint: 'release verify --vsa vsa.jsonl --expect v1.4.0',
    });
  const { runVsaCheck } = await import('./run-vsa-check.ts');
  await runVsaCheck(
    {
      vsa: flags.vsa!,
      expect,
      ...(flags.registry !== undefined ? { registry: flags.registry } : {}),
      ...(flags.verifierPub ? { verifierPub: flags.verifierPub } : {}),
      ...(flags.requireCheck ? { requireCheck: flags.requireCheck } : {}),
    },
    base,
  );
}
