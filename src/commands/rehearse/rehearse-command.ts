import { type Command, Option } from 'commander';
import type { RehearseOptions } from './run-rehearse.ts';

export function rehearseCommand(program: Command): void {
  program
    .command('rehearse')
    .description(
      'rehearse a whole release on this machine: stamp, build, promote, deploy, verify, gate, update',
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'oci: embedded store and processes; docker: images, a registry, containers',
      )
        .choices(['oci', 'docker'])
        .default('oci'),
    )
    .option(
      '--publish',
      'also publish the CLI package through the channels to a local Verdaccio (needs verdaccio installed)',
    )
    .option('--keep', 'keep the temporary workspace (repository, store, installs) and print where it is')
    .action(async (options: RehearseOptions, command: Command) => {
      const { runRehearse } = await import('./run-rehearse.ts');
      await runRehearse({ ...command.optsWithGlobals(), ...options });
    });
}
