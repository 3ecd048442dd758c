import { type Command, Option } from 'commander';
import type { SignFlags } from './run-sign.ts';

export function signCommand(program: Command): void {
  program
    .command('sign')
    .description('sign images by manifest digest and attach the signatures to them in the store')
    .argument(
      '[ref]',
      'a tag of all images (v1.2.0-rc.1), or one image: <image>:<tag> or <image>@sha256:<hex>',
    )
    .addOption(
      new Option('--channel <channel>', "sign the release record's release candidate").choices(['rc']),
    )
    .option(
      '--key <file>',
      'the encrypted private key (default: $RELEASE_SIGNING_KEY, then signing.privateKey)',
    )
    .option('--dry-run', 'resolve the digests and check the key, sign nothing')
    .action(async (ref: string | undefined, options: SignFlags, command: Command) => {
      const { runSign } = await import('./run-sign.ts');
      await runSign(ref, { ...command.optsWithGlobals(), ...options });
    });
}
