import { type Command, Option } from 'commander';
import { CHANNELS } from '../../channels/channel-of.ts';
import type { GlobalOptions } from '../command-context.ts';

interface StampOptions extends GlobalOptions {
  channel?: 'dev' | 'rc' | 'release';
  envFile?: string;
}

export function stampCommand(program: Command): void {
  program
    .command('stamp')
    .description('resolve the version and write it where every artifact build reads it')
    .addOption(
      new Option('--channel <channel>', 'require the version to suit this channel').choices(CHANNELS),
    )
    .option('--env-file <path>', 'where to write the dotenv file (default: beside the release record)')
    .option('--dry-run', 'decide and print, write nothing')
    .action(async (options: StampOptions, command: Command) => {
      const { runStamp } = await import('./run-stamp.ts');
      await runStamp({ ...command.optsWithGlobals(), ...options });
    });
}
