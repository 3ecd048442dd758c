import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { RuleError, UsageError } from '../../../errors.ts';
import { sameTag } from '../../../version/compare.ts';
import { requireApi, selectTimeout } from '../config/select-api.ts';
import type { SvcContext } from '../context.ts';
import { upgradeCommand } from '../gate/decide.ts';
import { installPrefixOf, runningScript } from '../install-prefix.ts';
import { out, progress, say } from '../output.ts';
import { describeSvcs, findSvcOnPath } from '../path-scan.ts';
import { bakedPublicKey } from '../update/baked-key.ts';
import { ARCHIVE_PATH, downloadArchive } from '../update/download.ts';
import { installChecked, UpdateInterrupted } from '../update/install-checked.ts';
import { preflightArchive } from '../update/preflight.ts';
import { refuseBelowServerMinimum } from '../update/server-minimum.ts';
import { checkArchiveSignature, type SignatureCheck } from '../update/signature.ts';
import { lockWaitMs } from '../update/update-lock.ts';

const DOWNLOAD_TIMEOUT_MS = 120_000;

/**
 * `svc update [--url <base_url>] [--dry-run] [--insecure-skip-signature]`: download, check
 * (signature when this svc carries a key, SHA-256, length, the archive's shape, a trial run),
 * install exactly the checked bytes with npm into the prefix this svc came from (and put the old
 * CLI back if the installed one does not report the checked version), then make sure the `svc`
 * first on PATH is the new one. Never gated: it is the remedy the gate points to. Every check happens before npm
 * runs, so a bad download leaves the installed CLI as it was.
 */
export async function runUpdate(ctx: SvcContext): Promise<number> {
  if (ctx.operands.length) {
    throw new UsageError('USAGE', `unexpected arguments: ${ctx.operands.join(' ')}`, {
      hint: 'svc update [--url <base_url>] [--dry-run] [--insecure-skip-signature]',
    });
  }
  const { baseUrl } = requireApi(ctx.url, ctx.env, ctx.config);
  const script = runningScript();
  const prefix = installPrefixOf(script);
  if (!prefix && !ctx.dryRun) {
    throw new UsageError(
      'NOT_NPM_INSTALLED',
      `this svc (${script ?? 'unknown path'}) was not installed with npm install -g, so svc update cannot tell where to install`,
      {
        hint: `install it with: ${upgradeCommand(baseUrl)}`,
      },
    );
  }

  const work = await mkdtemp(join(tmpdir(), 'svc-update-'));
  try {
    progress(`downloading ${baseUrl}${ARCHIVE_PATH}`);
    const archive = await downloadArchive(baseUrl, join(work, 'service-cli.tar.gz'), {
      cliVersion: ctx.cliVersion,
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
    });
    // Before any byte of the archive runs (the trial) or is installed.
    reportSignature(
      ctx,
      baseUrl,
      await checkArchiveSignature(archive.file, archive.signature, bakedPublicKey(), ctx.skipSignature),
    );
    await mkdir(join(work, 'trial'));
    const checked = await preflightArchive(archive.file, join(work, 'trial'));
    if (archive.url !== `${baseUrl}${ARCHIVE_PATH}`) progress(`the bytes came from ${archive.url}`);
    progress(`checked: ${archive.size} bytes, SHA-256 ${archive.sha256}, it runs as svc ${checked.version}`);
    await refuseBelowServerMinimum({
      baseUrl,
      archiveVersion: checked.version,
      cliVersion: ctx.cliVersion,
      timeoutMs: selectTimeout(ctx.env),
    });

    if (ctx.dryRun) {
      out(
        `would install svc ${checked.version} (package service-cli@${checked.packageVersion}) over svc ${ctx.cliVersion}`,
      );
      out(
        prefix
          ? `with: npm install -g --prefix ${prefix} <the checked archive>`
          : `this svc (${script}) was not installed with npm; install with: ${upgradeCommand(baseUrl)}`,
      );
      return 0;
    }
    if (sameTag(checked.version, ctx.cliVersion)) {
      out(`svc ${ctx.cliVersion} is what ${baseUrl} serves; nothing to do`);
      return 0;
    }
    progress(`installing into ${prefix}`);
    const interrupted = catchInterrupts();
    try {
      await installChecked({
        prefix: prefix!,
        file: archive.file,
        sha256: archive.sha256,
        version: checked.version,
        env: process.env,
        lockWaitMs: lockWaitMs(ctx.env),
        signal: interrupted.signal,
      });
    } finally {
      interrupted.release();
    }
    // A signal that came while the switch ran: the switch was finished first (the new svc is
    // installed, whole); the exit code still says the update was interrupted.
    if (interrupted.signal.aborted) {
      progress(`interrupted after the switch: svc ${checked.version} is installed`);
      return new UpdateInterrupted(interrupted.signal.reason).exitCode;
    }
    return await confirmOnPath(ctx, prefix!, checked.version);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * While svc update installs, SIGINT and SIGTERM do not kill svc at once (which could stop it
 * between two renames): they abort npm while staging, and are honoured after the switch otherwise.
 */
function catchInterrupts(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => controller.abort(name);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function reportSignature(ctx: SvcContext, baseUrl: string, check: SignatureCheck): void {
  if (check.status === 'verified')
    progress(`signature verified with key ${check.keyId} (baked into this svc)`);
  else if (check.status === 'skipped')
    say(
      'warning',
      `--insecure-skip-signature: NOT checking that the archive is signed by key ${check.keyId}; only the server's own checksum is checked, so whoever controls what ${baseUrl} serves decides what is installed`,
    );
  else if (ctx.skipSignature) progress('this svc carries no signing key: there is no signature to skip');
  else progress("this svc carries no signing key: the archive is checked against the server's checksum only");
}

/** Run the `svc` first on PATH; if it is not the new one, say which ones are in the way. */
async function confirmOnPath(ctx: SvcContext, prefix: string, version: string): Promise<number> {
  const found = await findSvcOnPath(ctx.env);
  const first = found[0];
  if (first?.version === version) {
    out(`svc updated: ${ctx.cliVersion} -> ${version} (${first.path})`);
    return 0;
  }
  const packageDir = `${join(prefix, 'lib', 'node_modules', 'service-cli')}${sep}`;
  const ours = found.findIndex((entry) => entry.realPath.startsWith(packageDir));
  const inTheWay = (ours === -1 ? found : found.slice(0, ours)).filter((entry) => entry.version !== version);
  const listing = found.length ? describeSvcs(found).join('\n  ') : '(none)';
  const fix =
    ours === -1
      ? `${join(prefix, 'bin')} is not on PATH: add it before the others${inTheWay.length ? `, or remove ${inTheWay.map((e) => e.path).join(', ')}` : ''}`
      : inTheWay.length === 0
        ? `the svc in ${join(prefix, 'bin')} does not report ${version}; run svc update again, or reinstall with: ${upgradeCommand(ctx.url ?? '<api_base_url>')}`
        : `remove ${inTheWay.map((e) => `${e.path} (svc ${e.version ?? '?'})`).join(', ')}, which come${inTheWay.length === 1 ? 's' : ''} first on PATH`;
  throw new RuleError(
    'UPDATE_SHADOWED',
    `installed svc ${version} into ${prefix}, but the svc first on PATH is ${first ? `${first.path} (svc ${first.version ?? '?'})` : 'missing'}.\nsvc on PATH, in order:\n  ${listing}`,
    {
      hint: fix,
    },
  );
}
