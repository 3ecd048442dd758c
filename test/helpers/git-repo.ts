import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real, tiny git repository in a temp directory, with the author, branch and dates fixed and gc
 * off, so tests never depend on this project's own history or the machine's git config
 * (goreleaser internal/testlib/git.go, changesets test-utils).
 */
export class GitRepo {
  private clock = 1_700_000_000;

  private constructor(readonly dir: string) {}

  static create(prefix = 'repo-'): GitRepo {
    const repo = new GitRepo(mkdtempSync(join(tmpdir(), `sr-${prefix}`)));
    repo.git('init', '-q', '-b', 'main');
    repo.git('config', 'gc.auto', '0');
    repo.git('config', 'commit.gpgsign', 'false');
    repo.git('config', 'tag.gpgsign', 'false');
    return repo;
  }

  /** Run git in the repository with a fixed identity and clock; returns trimmed stdout. */
  git(...args: string[]): string {
    const date = `${this.clock} +0000`;
    return execFileSync('git', args, {
      cwd: this.dir,
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH'],
        HOME: this.dir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'Test',
        GIT_AUTHOR_EMAIL: 'test@example.invalid',
        GIT_COMMITTER_NAME: 'Test',
        GIT_COMMITTER_EMAIL: 'test@example.invalid',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  }

  write(path: string, content: string): this {
    writeFileSync(join(this.dir, path), content);
    return this;
  }

  /** Commit a change to a file (so each commit has content) and return the full hash. */
  commit(message = 'change'): string {
    this.clock += 60;
    this.write('file.txt', `${message} ${this.clock}\n`);
    this.git('add', '-A');
    this.git('commit', '-q', '-m', message);
    return this.head();
  }

  tag(name: string): this {
    this.git('tag', name);
    return this;
  }

  /** Annotated tag, as release tooling often makes them. */
  annotatedTag(name: string): this {
    this.git('tag', '-a', name, '-m', name);
    return this;
  }

  head(): string {
    return this.git('rev-parse', 'HEAD');
  }

  /** Modify a tracked file without committing, so `describe --dirty` reports `-dirty`. */
  makeDirty(): this {
    return this.write('file.txt', `uncommitted ${Math.random()}\n`);
  }

  /** A shallow clone (depth 1, no tags) of this repository, the way CI checkouts often are. */
  shallowClone(): GitRepo {
    const target = mkdtempSync(join(tmpdir(), 'sr-shallow-'));
    rmSync(target, { recursive: true, force: true });
    execFileSync('git', ['clone', '-q', '--depth', '1', '--no-tags', `file://${this.dir}`, target], {
      stdio: 'ignore',
    });
    return new GitRepo(target);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
