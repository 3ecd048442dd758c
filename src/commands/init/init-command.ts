import { type Command, Option } from 'commander';
import type { InitOptions } from './init-options.ts';

export function initCommand(program: Command): void {
  program
    .command('init')
    .description(
      'start a config for an existing repository from what is in it (Dockerfiles, package.json, pyproject.toml, compose files), and its CI pipeline',
    )
    .option('-y, --yes', 'write without asking (the default when not on a terminal)')
    .option('--dry-run', 'show the files it would write and what it found, and write nothing')
    .option(
      '--force',
      'rewrite files that exist, showing the difference: the config keeps your edits (registry, signing, names, any key) and gains what is found now',
    )
    .addOption(
      new Option('--format <format>', 'the config file to write').choices(['ts', 'json']).default('ts'),
    )
    .addOption(
      new Option('--ci <platform>', 'the CI pipeline to write; auto: the platform the repository uses')
        .choices(['auto', 'github', 'gitlab', 'none'])
        .default('auto'),
    )
    .option('--registry <registry>', 'where images go (default: the embedded OCI layout, .release/oci)')
    .option(
      '--compose-file <file>',
      'a compose file to read instead of the production one `docker compose` picks (compose.yaml, docker-compose.yml); repeat for several',
      (file: string, previous: string[] = []) => [...previous, file],
    )
    .option(
      '--look-in <folder>',
      'a folder to look into first (init reads up to 20,000 files, shallowest first); repeat for several',
      (folder: string, previous: string[] = []) => [...previous, folder],
    )
    .option(
      '--name <name>',
      'the project name image names start with (default: from package.json, pyproject.toml or the folder)',
    )
    .action(async (options: InitOptions, command: Command) => {
      const { runInit } = await import('./run-init.ts');
      await runInit({ ...command.optsWithGlobals(), ...options });
    });
}
