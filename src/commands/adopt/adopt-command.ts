import type { Command } from 'commander';
import type { AdoptFlags } from './run-adopt.ts';

export function adoptCommand(program: Command): void {
  program
    .command('adopt')
    .description(
      "take images the project's own CI built and pushed as the build of the stamped version (instead of release build), checked in the registry",
    )
    .argument(
      '<input...>',
      'a `docker buildx build --metadata-file` or `docker buildx bake --metadata-file` output, or <registry>/<image>@sha256:<hex>; each may start with <artifact>= to say which artifact it is',
    )
    .option(
      '--key <file>',
      'the private key signing the provenance (default: $RELEASE_SIGNING_KEY, then signing.privateKey)',
    )
    .option('--dry-run', 'read and check every image in the registry; tag, attach and write nothing')
    .action(async (inputs: string[], options: AdoptFlags, command: Command) => {
      const { runAdopt } = await import('./run-adopt.ts');
      await runAdopt(inputs, { ...command.optsWithGlobals(), ...options });
    });
}
