import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { RELEASE_BIN, type RunResult, runRelease } from '../helpers/run-release.ts';

// Bad input a careful new user tries: each is a clean refusal (exit 2, one error line and a hint,
// no stack trace), never an internal error; with --json the error is a document on stdout too.
const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function project(config: Record<string, unknown> = { registry: 'oci-layout:.release/oci' }): GitRepo {
  const repo = GitRepo.create('bad-input-');
  repos.push(repo);
  repo.write('release.config.json', JSON.stringify(config));
  repo.commit('initial');
  return repo;
}

interface Case {
  name: string;
  code: string;
  /** Makes the project and returns the directory to run in and the arguments. */
  setup(): { cwd: string; args: string[]; env?: Record<string, string> };
}

const CASES: Case[] = [
  {
    name: 'stamp --cwd /nonexistent',
    code: 'CWD_INVALID',
    setup: () => ({ cwd: project().dir, args: ['stamp', '--cwd', '/nonexistent/project'] }),
  },
  {
    name: 'an invalid package.json (no release config)',
    code: 'CONFIG_INVALID',
    setup: () => {
      const repo = GitRepo.create('bad-input-');
      repos.push(repo);
      repo.write('package.json', '{"name": "acme", bad');
      repo.commit('initial');
      return { cwd: repo.dir, args: ['stamp'] };
    },
  },
  {
    name: 'keygen --out <a file>',
    code: 'KEYGEN_OUT_NOT_A_DIRECTORY',
    setup: () => {
      const repo = project();
      repo.write('keys', 'not a directory');
      return {
        cwd: repo.dir,
        args: ['keygen', '--out', 'keys'],
        env: { RELEASE_SIGNING_PASSPHRASE: 'a long enough passphrase' },
      };
    },
  },
  {
    name: 'dist is a file (stamp)',
    code: 'PATH_UNUSABLE',
    setup: () => {
      const repo = project();
      writeFileSync(join(repo.dir, 'dist'), 'a file');
      return { cwd: repo.dir, args: ['stamp'] };
    },
  },
  {
    name: 'the record under a file (config `record`)',
    code: 'PATH_UNUSABLE',
    setup: () => {
      const repo = project({ registry: 'oci-layout:.release/oci', record: 'notes.txt/release.json' });
      repo.write('notes.txt', 'a file');
      return { cwd: repo.dir, args: ['stamp'] };
    },
  },
  {
    name: 'the record under a file (promote reads it)',
    code: 'RECORD_MISSING',
    setup: () => {
      const repo = project({ registry: 'oci-layout:.release/oci', record: 'notes.txt/release.json' });
      repo.write('notes.txt', 'a file');
      return { cwd: repo.dir, args: ['promote', '--channel', 'dev'] };
    },
  },
  {
    name: 'an unknown option',
    code: 'USAGE_INVALID',
    setup: () => ({ cwd: project().dir, args: ['stamp', '--bogus'] }),
  },
  {
    name: 'a bad --channel',
    code: 'USAGE_INVALID',
    setup: () => ({ cwd: project().dir, args: ['promote', '--channel', 'nightly'] }),
  },
  {
    // A channel name is not a version: mirrored as one, it would move the target's latest.
    name: 'mirror --version latest',
    code: 'MIRROR_VERSION_INVALID',
    setup: () => ({ cwd: project().dir, args: ['mirror', '--version', 'latest', '--to', 'oci-layout:out'] }),
  },
];

/** One `error:` line, then its `hint:`; nothing that looks like a stack or an internal error. */
function expectCleanRefusal(result: RunResult, where: string): void {
  expect(result.code, `${where}\n${result.stderr}`).toBe(2);
  expect(result.stderr, where).not.toMatch(/^\s+at .+[:(]/m);
  expect(result.stderr, where).not.toContain('internal error');
  const lines = result.stderr.split('\n');
  const errors = lines.flatMap((line, i) => (line.startsWith('error: ') ? [i] : []));
  expect(errors.length, `${where}: one error line\n${result.stderr}`).toBe(1);
  const next = lines[errors[0]! + 1] ?? '';
  // Commander follows its one line with the usage (a hint of its own); ours with `hint:`.
  expect(next.startsWith('hint: ') || next === '', `${where}: a hint\n${result.stderr}`).toBe(true);
}

describe('bad input: exit 2, one line and a hint, no stack trace', () => {
  it.each(CASES)('$name', async (c) => {
    const { cwd, args, env } = c.setup();
    const human = await runRelease(args, { cwd, ...(env ? { env } : {}) });
    expectCleanRefusal(human, c.name);
    expect(human.stdout, c.name).toBe('');
    const machine = await runRelease([...args, '--json'], { cwd, ...(env ? { env } : {}) });
    expectCleanRefusal(machine, `${c.name} --json`);
    const doc = JSON.parse(machine.stdout) as { error: { code: string; exitCode: number; hint?: string } };
    expect(doc.error, c.name).toMatchObject({ code: c.code, exitCode: 2, hint: expect.any(String) });
  });
});

describe('--env-out: a name Node does not take', () => {
  it('`node bin/release.js stamp --env-out <path>` writes the dotenv file there (no `--` needed)', async () => {
    const repo = project();
    repo.annotatedTag('v1.4.0');
    mkdirSync(join(repo.dir, 'build'));
    const code = await new Promise<number>((resolve) => {
      execFile(
        process.execPath,
        [RELEASE_BIN, 'stamp', '--env-out', 'build/service.env'],
        { cwd: repo.dir, env: { PATH: process.env['PATH'] ?? '', HOME: repo.dir, CI: 'true' } },
        (error) => resolve(error ? Number(error.code) : 0),
      );
    });
    expect(code).toBe(0);
    expect(readFileSync(join(repo.dir, 'build/service.env'), 'utf8')).toBe(
      'SERVICE_VERSION=v1.4.0\nSERVICE_CLIENT_VERSION=v1.4.0\n',
    );
  });
});
