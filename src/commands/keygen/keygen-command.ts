import type { Command } from 'commander';
import type { GlobalOptions } from '../command-context.ts';

export function keygenCommand(program: Command): void {
  program
    .command('keygen')
    .description('create the ECDSA P-256 key pair that signs release candidates')
    .option('--out <dir>', 'directory for release-signing.key and release-signing.pub (default: --cwd)')
    .option(
      '--verifier',
      "the verifier's key pair instead (release-verifier.key/.pub, $RELEASE_VERIFIER_PASSPHRASE): it signs release verify --attest's summaries",
    )
    .action(async (options: { out?: string; verifier?: boolean }, command: Command) => {
      const { runKeygen } = await import('./run-keygen.ts');
      await runKeygen({ ...(command.optsWithGlobals() as GlobalOptions), ...options });
    });
}
