import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { RELEASE_BIN } from '../helpers/run-release.ts';

// `release init` as a process on a repository whose Dockerfile and compose file each hold a
// 1 MB line (the shapes quadratic patterns took minutes on): it finishes, in under a second more
// than the same repository with short lines; and SIGTERM or SIGINT ends it at once.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

const MB = 1024 * 1024;

function project(long: boolean): GitRepo {
  const repo = GitRepo.create('init-long-');
  repos.push(repo);
  const n = long ? MB : 16;
  const files: Record<string, string> = {
    'api/Dockerfile': `FROM node:20 AS ${' '.repeat(n)}x\nENV A="${'x'.repeat(n)}\nCOPY ${'a/'.repeat(n / 2)} /x\nCMD ["node"]\n`,
    'compose.yaml': `services:\n  api:\n    image: ghcr.io/acme/${'${a:-'.repeat(n / 5)}\n    build: ./api\n`,
    'pyproject.toml': `[project${' '.repeat(n)}\nname = "acme"\n`,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    repo.write(path, text);
  }
  repo.commit('service');
  return repo;
}

/** Run `release init`, optionally signalling it after `signalAfterMs`: exit code and seconds taken. */
function init(repo: GitRepo, signal?: { name: NodeJS.Signals; afterMs: number }, force = false) {
  return new Promise<{ code: number | null; signal: string | null; seconds: number; signalled: number }>(
    (done) => {
      const started = performance.now();
      const child = spawn(
        process.execPath,
        [RELEASE_BIN, 'init', '--yes', '--ci', 'none', '--name', 'acme', ...(force ? ['--force'] : [])],
        {
          cwd: repo.dir,
          stdio: 'ignore',
        },
      );
      let signalled = 0;
      if (signal)
        setTimeout(() => {
          signalled = performance.now();
          child.kill(signal.name);
        }, signal.afterMs);
      child.on('close', (code, killedBy) =>
        done({
          code,
          signal: killedBy,
          seconds: (performance.now() - started) / 1000,
          signalled: signalled ? (performance.now() - signalled) / 1000 : 0,
        }),
      );
    },
  );
}

describe('release init and long lines', () => {
  it('a Dockerfile and a compose file with a 1 MB line: done in under a second more than short ones', async () => {
    // The faster of two runs each: a process start on a shared, loaded machine varies by itself.
    const shortRepo = project(false);
    const longRepo = project(true);
    const short = [await init(shortRepo, undefined, true), await init(shortRepo, undefined, true)];
    const long = [await init(longRepo, undefined, true), await init(longRepo, undefined, true)];
    for (const run of [...short, ...long]) expect(run.code).toBe(0);
    const seconds = (runs: { seconds: number }[]) => Math.min(...runs.map((r) => r.seconds));
    // A generous bound (the bin's start-up is in both): the reading itself takes tenths of a second.
    expect(seconds(long) - seconds(short)).toBeLessThan(1);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s ends it at once', async (name) => {
    const repo = project(true);
    // Signalled while it reads: the bin stops at once with 143 or 130 (before its handlers are in
    // place Node's default ends it by the signal itself; a run already done exits 0).
    const run = await init(repo, { name, afterMs: 400 });
    const stopped = run.code === (name === 'SIGTERM' ? 143 : 130) || run.signal === name || run.code === 0;
    expect(stopped, `exit ${run.code}, signal ${run.signal}`).toBe(true);
    expect(run.signalled).toBeLessThan(1);
  });
});
