import { type Command, Option } from 'commander';
import { CHANNELS } from '../../channels/channel-of.ts';
import type { PromoteOptions } from './run-promote.ts';

export function promoteCommand(program: Command): void {
  program
    .command('promote')
    .description('tag the built images into the dev, rc or release channel: by manifest copy, all or nothing')
    .addOption(
      new Option('--channel <channel>', 'the channel to promote into')
        .choices(CHANNELS)
        .makeOptionMandatory(),
    )
    .option('--version <version>', 'the version to promote (default: the release record’s tag)')
    .option(
      '--from <tag|digest>',
      'promote the images under this tag or digest (default: the digests `release build` recorded)',
    )
    .option('--no-sign', 'rc: promote without signing (recorded; a release from it is refused)')
    .option('--key <file>', 'rc: the signing key (default: $RELEASE_SIGNING_KEY, then signing.privateKey)')
    .option('--dry-run', 'print the plan, write nothing')
    .action(async (options: PromoteOptions, command: Command) => {
      const { runPromote } = await import('./run-promote.ts');
      await runPromote({ ...command.optsWithGlobals(), ...options });
    });
}
