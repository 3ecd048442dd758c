import type { Command } from 'commander';
import type { BumpFlags } from './run-bump.ts';

export function bumpCommand(program: Command): void {
  program
    .command('bump')
    .description(
      'write the release into the deployment files (Helm, kustomize, manifests, Compose): every image and role in one change, or none',
    )
    .option('--version <version>', "the release to write (default: the release record's tag)")
    .option('--manifests <dir>', 'the deployment files to write (default: deploy.manifests in the config)')
    .option(
      '--pin-digest',
      "also pin each image to the release's digest (tag@sha256:…), from the release record",
    )
    .option('--dry-run', 'print the diff, write nothing')
    .action(async (options: BumpFlags, command: Command) => {
      const { runBump } = await import('./run-bump.ts');
      await runBump({ ...command.optsWithGlobals(), ...options });
    });
}
