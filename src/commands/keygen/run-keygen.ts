import { existsSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { currentIo } from '../../console/cli-io.ts';
import { UsageError } from '../../errors.ts';
import { projectPath } from '../../files/project-path.ts';
import { KEY_FILE_NAMES, writeKeyPair } from '../../signing/key-files.ts';
import { PASSPHRASE_ENV, shortKeyId } from '../../signing/keys.ts';
import { VERIFIER_KEY_FILE_NAMES, VERIFIER_PASSPHRASE_ENV } from '../../signing/verifier-key.ts';
import { type GlobalOptions, projectDir } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';

/**
 * `release keygen`: needs no config (it is what a project runs before it has a signing section),
 * only the passphrase in the environment.
 */
export async function runKeygen(
  options: GlobalOptions & { out?: string; verifier?: boolean },
): Promise<void> {
  const io = currentIo();
  const cwd = projectDir(io.cwd, options.cwd);
  // The private key goes where the project says, never through a link out of it (a repository
  // may ship `keys -> /tmp/shared`).
  const outDir = projectPath(cwd, options.out ?? '.', {
    setting: '--out',
    code: 'KEYGEN_OUT_OUTSIDE_PROJECT',
  });
  if (existsSync(outDir) && !statSync(outDir).isDirectory())
    throw new UsageError('KEYGEN_OUT_NOT_A_DIRECTORY', `--out ${outDir} is a file`, {
      hint: '--out names the directory the key pair is written into: give a directory (it is created if missing)',
    });
  const pair = options.verifier
    ? {
        names: VERIFIER_KEY_FILE_NAMES,
        passphraseEnv: VERIFIER_PASSPHRASE_ENV,
        setting: 'verifier.publicKey',
      }
    : { names: KEY_FILE_NAMES, passphraseEnv: PASSPHRASE_ENV, setting: 'signing.publicKey' };
  const written = await writeKeyPair(outDir, io.env, pair);
  if (options.json) {
    printJson(written);
    return;
  }
  const show = (path: string) => relative(cwd, path) || path;
  printLine(`wrote ${show(written.privateKey)} (mode 0600, encrypted with $${pair.passphraseEnv})`);
  printLine(`wrote ${show(written.publicKey)}  key ${shortKeyId(written.keyId)}`);
  printLine(
    `next: set ${pair.setting} to '${show(written.publicKey)}' in the config; keep the private key out of git`,
  );
}
