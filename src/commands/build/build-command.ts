import { type Command, Option } from 'commander';
import type { GlobalOptions } from '../command-context.ts';

interface BuildOptions extends GlobalOptions {
  engine?: 'docker' | 'oci';
  push?: boolean;
  only?: string;
}

export function buildCommand(program: Command): void {
  program
    .command('build')
    .description(
      'build the CLI archive and the images the config declares, with the stamped version baked in',
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'docker (dockerode, DOCKER_HOST) or oci (daemonless); default: docker when one answers, else oci',
      ).choices(['docker', 'oci']),
    )
    .option('--push', 'push the images to the configured registry (the oci engine writes there directly)')
    .option('--dry-run', 'read the record, check the recipes and choose the engine; build and write nothing')
    .option(
      '--only <artifacts>',
      'build only these artifacts (names under artifacts in the config), comma-separated',
    )
    .action(async (options: BuildOptions, command: Command) => {
      const { runBuild } = await import('./run-build.ts');
      await runBuild({ ...command.optsWithGlobals(), ...options });
    });
}
