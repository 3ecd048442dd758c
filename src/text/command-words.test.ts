import { describe, expect, it } from 'vitest';
import { commandMatch, commandWords, coreCommand, runsCommand, runsLast } from './command-words.ts';

const migrate = ['pnpm', 'exec', 'prisma', 'migrate', 'deploy'];

describe('commandWords', () => {
  it('keeps a list as it is and splits a string as Compose does', () => {
    expect(commandWords(['sh', '-c', 'a b'])).toEqual(['sh', '-c', 'a b']);
    expect(commandWords([1, true])).toEqual(['1', 'true']);
    expect(commandWords(`sh -c "pnpm exec prisma migrate deploy"`)).toEqual([
      'sh',
      '-c',
      'pnpm exec prisma migrate deploy',
    ]);
    expect(commandWords(`a\\ b 'c d' "e\\"f" $HOME`)).toEqual(['a b', 'c d', 'e"f', '$HOME']);
  });

  it('reads a line the shell parser refuses (an open ${) as words between spaces, never throwing', () => {
    expect(commandWords('echo ${ migrate')).toEqual(['echo', '${', 'migrate']);
    expect(commandMatch('${', [])).toBe(0);
    expect(runsCommand('${ migrate', ['migrate'])).toBe(true);
    expect(commandWords('')).toEqual([]);
  });
});

describe('runsCommand', () => {
  // Each line runs the migration role's command, as real compose files and manifests write it.
  const lines: [string, string | string[]][] = [
    ['a list', migrate],
    ['a string', 'pnpm exec prisma migrate deploy'],
    ['sh -c string', `sh -c "pnpm exec prisma migrate deploy"`],
    ['sh -c list', ['sh', '-c', 'pnpm exec prisma migrate deploy']],
    ['/bin/sh -c', ['/bin/sh', '-c', 'pnpm exec prisma migrate deploy']],
    ['bash -c', `bash -c 'pnpm exec prisma migrate deploy'`],
    ['/bin/bash -ec', ['/bin/bash', '-ec', 'pnpm exec prisma migrate deploy']],
    ['bash -o pipefail -c', ['bash', '-o', 'pipefail', '-c', 'pnpm exec prisma migrate deploy', 'x']],
    ['exec in the payload', `sh -c "exec pnpm exec prisma migrate deploy"`],
    ['one of several', `sh -c "cd /app && pnpm exec prisma migrate deploy && echo done"`],
    ['a multi-line payload', ['sh', '-c', 'set -e\ncd /app\npnpm exec prisma \\\n  migrate deploy\n']],
    ['tini --', ['tini', '--', ...migrate]],
    ['/sbin/tini -g --', ['/sbin/tini', '-g', '--', ...migrate]],
    ['tini -p SIGTERM --', ['/usr/bin/tini', '-p', 'SIGTERM', '--', ...migrate]],
    ['tini-static', ['/tini-static', '--', ...migrate]],
    ['dumb-init', ['dumb-init', ...migrate]],
    ['dumb-init --', ['/usr/bin/dumb-init', '--', ...migrate]],
    ['dumb-init --rewrite', ['dumb-init', '--rewrite', '15:2', '--single-child', '--', ...migrate]],
    [
      'an entrypoint script, then sh -c',
      ['docker-entrypoint.sh', 'sh', '-c', 'pnpm exec prisma migrate deploy'],
    ],
    ['tini then sh -c', ['tini', '--', '/bin/sh', '-c', 'exec pnpm exec prisma migrate deploy']],
    ['sh -c holding bash -c', `sh -c "bash -c 'pnpm exec prisma migrate deploy'"`],
  ];
  it.each(lines)('finds the command in %s', (_, argv) => {
    expect(runsCommand(argv, migrate)).toBe(true);
    expect(commandMatch(argv, migrate)).toBe(5);
  });

  it('reads the role command as it reads the line: wrapped or split, it is the same command', () => {
    expect(runsCommand(migrate, ['sh', '-c', 'pnpm exec prisma migrate deploy'])).toBe(true);
    expect(runsCommand(migrate, ['tini', '--', ...migrate])).toBe(true);
    expect(runsCommand(['node', 'dist/worker.js'], 'node dist/worker.js')).toBe(true);
  });

  const others: [string, string | string[]][] = [
    ['another command', ['pnpm', 'exec', 'prisma', 'migrate', 'status']],
    ['scattered words', ['pnpm', 'exec', 'prisma', 'db', 'migrate', 'deploy']],
    ['one word in quotes', ['pnpm exec prisma migrate deploy']],
    ['split by an operator', `sh -c "pnpm exec prisma && migrate deploy"`],
    ['a shell without -c', ['sh', 'pnpm', 'exec']],
    ['a comment', `sh -c "echo # pnpm exec prisma migrate deploy"`],
    ['positional arguments after the payload', ['sh', '-c', 'echo', ...migrate]],
    ['nothing', []],
  ];
  it.each(others)('does not find it in %s', (_, argv) => {
    expect(runsCommand(argv, migrate)).toBe(false);
    expect(commandMatch(argv, migrate)).toBe(0);
  });

  it('an empty command runs nowhere', () => {
    expect(runsCommand(migrate, [])).toBe(false);
    expect(runsCommand(migrate, 'tini --')).toBe(false);
  });

  it('counts the words that matched, so the more specific of two roles wins', () => {
    const line = `sh -c "celery -A acme beat -l info"`;
    expect(commandMatch(line, ['celery'])).toBe(1);
    expect(commandMatch(line, ['celery', '-A', 'acme', 'beat'])).toBe(4);
  });

  it('stays linear on a long hostile line', () => {
    const long = `sh -c "${'a '.repeat(20_000)}"`;
    expect(runsCommand(long, ['a', 'a', 'b'])).toBe(false);
    expect(runsCommand('"'.repeat(10_001), migrate)).toBe(false);
  });
});

describe('coreCommand', () => {
  it('is the one command a line runs, without its wrapper, shell and exec', () => {
    expect(coreCommand(`sh -c "exec pnpm exec prisma migrate deploy"`)).toEqual(migrate);
    expect(coreCommand(['tini', '--', 'node', 'worker.js'])).toEqual(['node', 'worker.js']);
    expect(coreCommand(['/usr/bin/dumb-init', '--', 'sh', '-c', 'celery -A acme worker'])).toEqual([
      'celery',
      '-A',
      'acme',
      'worker',
    ]);
    expect(coreCommand(['run', 'web'])).toEqual(['run', 'web']);
  });

  it('keeps a line that runs several commands as written', () => {
    const line = ['sh', '-c', 'pnpm exec prisma migrate deploy && node dist/main.js'];
    expect(coreCommand(line)).toEqual(line);
    expect(coreCommand(line.join(' ').replace('-c ', '-c "') + '"')).toEqual(line);
  });
});

describe('runsLast', () => {
  it.each([
    ['sh -c "migrate && exec serve --port 80"', ['serve'], true],
    ['sh -c "migrate && exec serve --port 80"', ['migrate'], false],
    [['tini', '--', 'sh', '-c', 'migrate; serve'], ['serve'], true],
    [['serve', '--port', '80'], ['serve'], true],
    ['sh -c "migrate && serve;"', ['serve'], true],
    ['sh -c "migrate && serve"', [], false],
  ] as [string | string[], string[], boolean][])('%j ends in %j: %s', (argv, command, last) => {
    expect(runsLast(argv, command)).toBe(last);
  });
});
