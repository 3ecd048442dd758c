import { simpleGit } from 'simple-git';
import { describeCommit } from '../shared/git-describe.ts';

/** How long the git questions may take together: a repository on a slow network disk, at worst. */
const GIT_DEADLINE_MS = 30_000;

export interface RepoInfo {
  /** Full HEAD commit, or null outside a repository / before the first commit. */
  commit: string | null;
  /** Committer time of HEAD, seconds since the epoch. */
  commitTime: number | null;
  /** Tracked files differ from HEAD (untracked files do not count, as with `describe --dirty`). */
  dirty: boolean;
  shallow: boolean;
  /**
   * The version the commit's tags mean (`describeCommit`: `git describe --tags --always --dirty`
   * over version tags, the highest tag on the commit winning), or null when git could not answer.
   */
  describe: string | null;
}

/**
 * The few git questions the toolkit asks about a source tree, one function, simple-git underneath.
 * Three git processes, all at once: every `release stamp` pays for them at start-up, so each
 * answers as much as it can. The description is the version itself (spec: `git describe --tags
 * --always --dirty`), and its `-dirty` suffix is the dirty check (tracked files only, as the
 * spec means it); one `git log` gives the commit and its time.
 */
export async function readRepoInfo(dir: string, deadlineMs = GIT_DEADLINE_MS): Promise<RepoInfo> {
  // simple-git settles a command on its 'close' or 50 ms after its 'exit', whichever is first,
  // and that 50 ms timer outlives the answer: every stamp sat idle 50 ms before it could exit.
  // 'close' alone is the complete answer (all output read). The deadline covers a git that
  // never closes (something it started still holding its output): the answer is then "no
  // repository information", and the abort stops what still runs. Cleared when done, it holds
  // nothing open.
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      deadline.abort();
      resolve(null);
    }, deadlineMs);
  });
  const git = simpleGit({
    baseDir: dir,
    abort: deadline.signal,
    completion: { onClose: true, onExit: false },
  }).env(gitEnv(process.env));
  const ask = async (args: string[]): Promise<string | null> => {
    try {
      return (await git.raw(args)).trim();
    } catch {
      return null;
    }
  };
  const answers = await Promise.race([
    Promise.all([
      ask(['log', '-1', '--format=%H%n%ct', 'HEAD']),
      describeCommit(ask),
      ask(['rev-parse', '--is-shallow-repository']),
    ]),
    late,
  ]).finally(() => clearTimeout(timer));
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

const NO_REPOSITORY: RepoInfo = {
  commit: null,
  commitTime: null,
  dirty: false,
  shallow: false,
  describe: null,
};

/**
 * The environment git gets: only what read-only questions need. Passing the caller's whole
 * environment made simple-git refuse to run at all whenever EDITOR, PAGER, GIT_ASKPASS or
 * similar were set (it guards them against injection), and the stamp then silently lost its
 * commit. GIT_DIR and friends are left out too: the answer must come from `dir` itself.
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
