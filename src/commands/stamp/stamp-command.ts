import { type Command, Option } from 'commander';
import { CHANNELS } from '../../channels/channel-of.ts';
import type { GlobalOptions } from '../command-context.ts';

interface StampOptions extends GlobalOptions {
  channel?: 'dev' | 'rc' | 'release';
  envOut?: string;
  /** The old name of --env-out; Node 20 takes `node bin/release.js ... --env-file` as its own. */
  envFile?: string;
}

export function stampCommand(program: Command): void {
  program
    .command('stamp')
    .description('resolve the version and write it where every artifact build reads it')
    .addOption(
      new Option('--channel <channel>', 'require the version to suit this channel').choices(CHANNELS),
    )
    .option('--env-out <path>', 'where to write the dotenv file (default: beside the release record)')
    .option(
      '--env-file <path>',
      'the same as --env-out, through `release` and `npx release` only: `node bin/release.js` hands it to Node 20',
    )
    .option('--dry-run', 'decide and print, write nothing')
    .action(async (options: StampOptions, command: Command) => {
      const { runStamp } = await import('./run-stamp.ts');
      const { envOut, envFile, ...rest } = options;
      const out = envOut ?? envFile;
      await runStamp({ ...command.optsWithGlobals(), ...rest, ...(out ? { envFile: out } : {}) });
    });
}
