import { resolve } from 'node:path';
import { DEFAULT_VERIFIER_ID } from '../../evidence/vsa.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import { readVerifierKey } from '../../signing/verifier-key.ts';
import type { FailOn } from '../../verify/report.ts';
import type { VerifyContext } from './verify-context.ts';

/** `--attest`: the verifier's private key, never the release key, and where the summaries go. */
export async function attestSetup(
  flags: { verifierKey?: string | undefined; out?: string | undefined; failOn?: FailOn | undefined },
  base: BaseContext,
  releaseKeyId: string,
): Promise<NonNullable<VerifyContext['attest']>> {
  const key = await readVerifierKey({ ...base, keyPath: flags.verifierKey, releaseKeyId });
  return {
    key,
    verifierId: base.config.verifier?.id ?? DEFAULT_VERIFIER_ID,
    ...(flags.out ? { out: resolve(base.cwd, flags.out) } : {}),
    // A summary passes exactly when the command would exit 0 (`--fail-on warn` included).
    ...(flags.failOn ? { failOn: flags.failOn } : {}),
  };
}
