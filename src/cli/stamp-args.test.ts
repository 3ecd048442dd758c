import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../channels/channel-of.ts';
import { parseStampArgs, STAMP_FLAGS } from '../commands/stamp/stamp-args.ts';
import { stampCommand } from '../commands/stamp/stamp-command.ts';
import { defineProgram } from './commands.ts';

describe('parseStampArgs', () => {
  it('knows exactly the flags commander declares for stamp and globally, with the same channels', () => {
    const program = defineProgram(new Command('release'));
    stampCommand(program);
    const stamp = program.commands.find((c) => c.name() === 'stamp')!;
    const declared = [...program.options, ...stamp.options].map((o) => ({
      name: o.long!.replace(/^--/, ''),
      type: o.required || o.optional ? 'string' : 'boolean',
    }));
    const table = Object.entries(STAMP_FLAGS).map(([name, flag]) => ({ name, type: flag.type }));
    expect(table.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      declared.sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(stamp.options.find((o) => o.long === '--channel')?.argChoices).toEqual([...CHANNELS]);
  });

  it('reads plain arguments as the commander action hands them to the run', () => {
    expect(parseStampArgs([])).toEqual({});
    expect(
      parseStampArgs([
        '--dry-run',
        '--json',
        '--channel',
        'rc',
        '--cwd',
        'svc',
        '--config=release.config.json',
      ]),
    ).toEqual({ dryRun: true, json: true, channel: 'rc', cwd: 'svc', config: 'release.config.json' });
    expect(parseStampArgs(['--env-out', 'a.env'])).toEqual({ envFile: 'a.env' });
    expect(parseStampArgs(['--env-file', 'b.env'])).toEqual({ envFile: 'b.env' });
    expect(parseStampArgs(['--env-out', 'a.env', '--env-file', 'b.env'])).toEqual({ envFile: 'a.env' });
  });

  it('leaves to commander whatever it must refuse or explain', () => {
    for (const args of [
      ['--help'],
      ['-h'],
      ['--channel', 'beta'],
      ['--chanel', 'rc'],
      ['extra'],
      ['--', 'extra'],
      ['--json=yes'],
      ['--cwd'],
      ['--cwd', '--json'],
      ['--json', '--json'],
    ]) {
      expect(parseStampArgs(args), args.join(' ')).toBeUndefined();
    }
  });
});
