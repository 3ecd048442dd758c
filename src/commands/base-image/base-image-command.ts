import type { Command } from 'commander';
import type { GlobalOptions } from '../command-context.ts';

interface BaseImageOptions extends GlobalOptions {
  ref?: string[];
}

export function baseImageCommand(program: Command): void {
  program
    .command('base-image')
    .description(
      "make the minimal base image (this machine's node and its shared libraries) that builds start from",
    )
    .option(
      '--ref <image>',
      'where to write it: oci-layout:<dir>/<repo>:<tag> or <host>/<repo>:<tag> (repeatable; default: the configured artifacts.*.base)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(async (options: BaseImageOptions, command: Command) => {
      const { runBaseImage } = await import('./run-base-image.ts');
      await runBaseImage({ ...command.optsWithGlobals(), ...options });
    });
}
