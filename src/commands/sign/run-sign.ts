import { UsageError } from '../../errors.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import { readReleaseRecord, recordPath } from '../../record/release-record.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { shortKeyId } from '../../signing/keys.ts';
import { targetsFromRecord, targetsFromRef } from '../../signing/sign-targets.ts';
import type { GlobalOptions } from '../command-context.ts';
import { baseContext } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { SignContext, SignResult } from './sign-context.ts';
import { signPipeline } from './sign-pipeline.ts';

export interface SignFlags extends GlobalOptions {
  channel?: 'rc';
  key?: string;
}

export async function runSign(ref: string | undefined, flags: SignFlags): Promise<void> {
  if (Boolean(ref) === Boolean(flags.channel)) {
    throw new UsageError(
      'SIGN_WHAT',
      ref ? 'give either <ref> or --channel rc, not both' : 'what to sign? give <ref> or --channel rc',
      {
        hint: 'release sign v1.2.0-rc.1, release sign service-api@sha256:<hex>, or release sign --channel rc',
      },
    );
  }
  const base = await baseContext(flags);
  const signTargets = ref
    ? targetsFromRef(ref, base.config)
    : targetsFromRecord(await readReleaseRecord(recordPath(base.configDir, base.config.record)), base.config);
  const ctx: SignContext = {
    ...base,
    store: openConfiguredStore(base),
    signTargets,
    ...(flags.key ? { keyPath: flags.key } : {}),
  };
  await runPipeline(signPipeline, ctx, ctx);
  const results: SignResult[] =
    ctx.signed ??
    ctx.signTargets.map((t) => ({
      artifact: t.artifact,
      repository: t.repository,
      digest: t.digest!,
      status: 'would-sign',
    }));
  const keyId = ctx.signingKey!.publicKey.keyId;
  if (ctx.json) {
    printJson({ store: ctx.store.name, keyId, dryRun: ctx.dryRun, images: results, warnings: ctx.warnings });
  } else {
    printLine(`${ctx.dryRun ? 'would sign' : 'signed'} with key ${shortKeyId(keyId)} in ${ctx.store.name}`);
    for (const r of results) {
      const what = r.status === 'signed' ? `signed (signature ${r.signature})` : r.status.replace('-', ' ');
      printLine(`  ${r.artifact.padEnd(6)} ${r.repository}@${r.digest}  ${what}`);
      // An index: the platform images a node actually runs, each signed with it.
      for (const p of r.platforms ?? [])
        printLine(`    ${p.platform} ${r.repository}@${p.digest}  signature ${p.signature}`);
    }
  }
  for (const text of ctx.warnings) warn(text);
}
