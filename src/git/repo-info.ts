import { execFile } from 'node:child_process';
import { parseVersion } from '../version/parse.ts';
import { describeCommit } from '../version-source/git-describe.ts';

/** How long the git questions may take together: a repository on a slow network disk, at worst. */
const GIT_DEADLINE_MS = 30_000;

export interface RepoInfo {
  /** Full HEAD commit, or null outside a repository / before the first commit. */
  commit: string | null;
  /** Committer time of HEAD, seconds since the epoch. */
  commitTime: number | null;
  /** Tracked files differ from HEAD (untracked files do not count, as with `describe --dirty`). */
  dirty: boolean;
  /**
   * A shallow clone. Asked only where it changes what a stamp says: when no tag is reachable (the
   * description is a bare hash, and a deeper fetch may find one); false otherwise.
   */
  shallow: boolean;
  /**
   * The version the commit's tags mean (`describeCommit`: `git describe --tags --always --dirty`
   * over version tags, the highest tag on the commit winning), or null when git could not answer.
   */
  describe: string | null;
}

/**
 * The few git questions the toolkit asks about a source tree, in one function. Its git processes
 * run at once where they can: every `release stamp` pays for them at start-up, so each answers as
 * much as it can. The description is the version itself (spec: `git describe --tags --always --dirty`), and
 * its `-dirty` suffix is the dirty check (tracked files only, as the spec means it); one `git log`
 * gives the commit, its time and the tags on it: two processes for a tagged commit, a third when
 * a description's base tag has siblings to weigh or no tag is reachable (is the clone shallow?).
 *
 * Plain `node:child_process`, as `gitDescribe` is: simple-git (with its debug logger) took longer
 * to load than the git processes take to answer, on the path of every CI job's first command.
 * The deadline covers a git that never closes its output (something it started still holding it):
 * the answer is then "no repository information", and what still runs is killed.
 */
export async function readRepoInfo(dir: string, deadlineMs = GIT_DEADLINE_MS): Promise<RepoInfo> {
  const deadline = new AbortController();
  const env = gitEnv(process.env);
  const ask = (args: string[]): Promise<string | null> =>
    new Promise((resolve) => {
      execFile('git', args, { cwd: dir, env, signal: deadline.signal, windowsHide: true }, (error, stdout) =>
        resolve(error ? null : String(stdout).trim()),
      );
    });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      deadline.abort();
      resolve(null);
    }, deadlineMs);
  });
  // The commit, its time and its tags in one process: describeCommit needs no `git tag` then.
  const log = ask([
    'log',
    '-1',
    '--format=%H%n%ct%n%D',
    '--decorate=short',
    '--decorate-refs=refs/tags/',
    'HEAD',
  ]);
  const described = describeCommit(ask, log.then(tagsOfDecoration));
  const shallowness = described.then((d) =>
    d && parseVersion(d).kind === 'hash' ? ask(['rev-parse', '--is-shallow-repository']) : 'false',
  );
  const answers = await Promise.race([Promise.all([log, described, shallowness]), late]).finally(() =>
    clearTimeout(timer),
  );
  const [head, describe, shallow] = answers ?? [];
  const [commit, time] = head ? head.split('\n') : [];
  if (!commit || !/^[0-9a-f]{40,64}$/.test(commit)) return { ...NO_REPOSITORY };
  return {
    commit,
    commitTime: time && /^\d+$/.test(time) ? Number(time) : null,
    dirty: describe?.endsWith('-dirty') ?? false,
    shallow: shallow === 'true',
    describe: describe || null,
  };
}

/**
 * The tag names in `git log --format=%D --decorate-refs=refs/tags/` (its third line here):
 * `tag: v1.2.0, tag: v1.2.0-rc.1`. Ref names hold no spaces, so ", " only ever separates them.
 */
export function tagsOfDecoration(log: string | null): string[] {
  const decoration = log?.split('\n')[2] ?? '';
  return decoration
    .split(', ')
    .flatMap((item) =>
      item.startsWith('tag: ') ? [item.slice('tag: '.length).replace(/^refs\/tags\//, '')] : [],
    );
}

const NO_REPOSITORY: RepoInfo = {
  commit: null,
  commitTime: null,
  dirty: false,
  shallow: false,
  describe: null,
};

/**
 * The environment git gets: only what read-only questions need. An editor, a pager or an askpass
 * program has no business in a question git answers from disk (and GIT_TERMINAL_PROMPT=0 keeps it
 * from ever asking). GIT_DIR and friends are left out too: the answer must come from `dir` itself.
 */
export function gitEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const keep = [
    'PATH',
    'HOME',
    'XDG_CONFIG_HOME',
    'TMPDIR',
    'LANG',
    'LC_ALL',
    'GIT_CONFIG_NOSYSTEM',
    'GIT_CONFIG_GLOBAL',
  ];
  const clean: Record<string, string> = { GIT_TERMINAL_PROMPT: '0' };
  for (const key of keep) if (env[key] !== undefined) clean[key] = env[key]!;
  return clean;
}
