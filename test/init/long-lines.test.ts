import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { RELEASE_BIN } from '../helpers/run-release.ts';

// `release init` as a process on a repository whose Dockerfile and compose file each hold a
// 1 MB line (the shapes quadratic patterns took minutes on): it finishes (the speed target is
// `npm run bench:init`'s); and SIGTERM or SIGINT sent while it reads those lines (known from the
// bytes it has read) ends it at once with 143 or 130, before it writes anything.

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

/** Bytes the process has read so far (`rchar` of /proc/<pid>/io: every read(2), files and pipes). */
function bytesRead(pid: number): number | undefined {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
  } catch {
    return undefined; // gone
  }
}

interface InitRun {
  code: number | null;
  signal: string | null;
  seconds: number;
  /** The most bytes the process was seen to have read. */
  read: number;
  /** Set when a signal was sent: the bytes read by then, and seconds from it to the exit. */
  signalled?: { read: number; toExit: number };
}

/**
 * Run `release init`, watching what it has read every millisecond. With `signal`, send it the
 * moment the process has read `afterBytes`: a count only reading the project's files reaches.
 */
function init(repo: GitRepo, signal?: { name: NodeJS.Signals; afterBytes: number }, force = false) {
  return new Promise<InitRun>((done) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [RELEASE_BIN, 'init', '--yes', '--ci', 'none', '--name', 'acme', ...(force ? ['--force'] : [])],
      { cwd: repo.dir, stdio: 'ignore' },
    );
    let read = 0;
    let signalled: { at: number; read: number } | undefined;
    const watch = setInterval(() => {
      read = Math.max(read, bytesRead(child.pid!) ?? 0);
      if (signal && !signalled && read >= signal.afterBytes) {
        signalled = { at: performance.now(), read };
        child.kill(signal.name);
      }
    }, 1);
    child.on('close', (code, killedBy) => {
      clearInterval(watch);
      done({
        code,
        signal: killedBy,
        seconds: (performance.now() - started) / 1000,
        read,
        ...(signalled
          ? { signalled: { read: signalled.read, toExit: (performance.now() - signalled.at) / 1000 } }
          : {}),
      });
    });
  });
}

describe('release init and long lines', () => {
  it('a Dockerfile and a compose file with a 1 MB line: done, within a deadline of the short ones', async () => {
    // The faster of two runs each: a process start on a shared, loaded machine varies by itself.
    const shortRepo = project(false);
    const longRepo = project(true);
    const short = [await init(shortRepo, undefined, true), await init(shortRepo, undefined, true)];
    const long = [await init(longRepo, undefined, true), await init(longRepo, undefined, true)];
    for (const run of [...short, ...long]) expect(run.code).toBe(0);
    const seconds = (runs: { seconds: number }[]) => Math.min(...runs.map((r) => r.seconds));
    // A deadline, not a speed target: the reading takes tenths of a second here, the quadratic
    // patterns took minutes. The target (under 1 s at 1 MB) is `npm run bench:init`'s.
    expect(seconds(long) - seconds(short)).toBeLessThan(15);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s while it reads the long lines ends it, nothing written',
    async (name) => {
      // What start-up reads (the bin, its modules, git) is what a run on short lines reads in
      // all: past that and one more megabyte, the process is reading the project's long lines.
      const baseline = (await init(project(false))).read;
      const repo = project(true);
      const run = await init(repo, { name, afterBytes: baseline + MB });
      // The signal was sent while it read (not before its start, not after it finished), and the
      // bin's own handler ended it with the shell's code for that signal, before it wrote a file.
      expect(run.signalled, `never read ${baseline + MB} bytes (read ${run.read})`).toBeDefined();
      expect(run.code, `exit ${run.code}, signal ${run.signal}`).toBe(name === 'SIGTERM' ? 143 : 130);
      expect(existsSync(join(repo.dir, 'release.config.ts'))).toBe(false);
      // At once: the readers are linear, so no pattern holds the event loop for long. A deadline.
      expect(run.signalled!.toExit).toBeLessThan(10);
      console.log(
        `init ${name}: sent after ${(run.signalled!.read / MB).toFixed(2)} MB read (start-up reads ${(baseline / MB).toFixed(2)} MB), exit ${run.code} ${run.signalled!.toExit.toFixed(2)} s later`,
      );
    },
  );
});
