import type { Command } from 'commander';
import type { MirrorFlags } from './run-mirror.ts';

export function mirrorCommand(program: Command): void {
  program
    .command('mirror')
    .description(
      'copy a signed release (every image, platform, signature, SBOM, provenance, release set and its rc) between stores, verified against signing.publicKey first',
    )
    .requiredOption('--version <tag>', 'the release (or rc) tag to mirror')
    .option(
      '--from <store>',
      "where the release is: host[:port][/ns], oci-layout:<dir> or oci-archive:<file.tar> (default: the config's registry)",
    )
    .requiredOption(
      '--to <store>',
      'where it goes: host[:port][/ns], oci-layout:<dir> or oci-archive:<file.tar>',
    )
    .option('--latest', 'also move latest in the target, when the tag is the highest stable version there')
    .option(
      '--strict-referrers',
      'refuse the release when it carries a referrer the key does not verify (default: leave it behind with a notice)',
    )
    .option('--dry-run', 'list the set (digests, sizes, total bytes) and check it; write nothing')
    .action(async (options: MirrorFlags, command: Command) => {
      const { runMirror } = await import('./run-mirror.ts');
      await runMirror({ ...command.optsWithGlobals(), ...options });
    });
}
