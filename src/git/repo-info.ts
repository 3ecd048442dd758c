import { simpleGit } from 'simple-git';

export interface RepoInfo {
  /** Full HEAD commit, or null outside a repository / before the first commit. */
  commit: string | null;
  /** Committer time of HEAD, seconds since the epoch. */
  commitTime: number | null;
  /** Tracked files differ from HEAD (untracked files do not count, as with `describe --dirty`). */
  dirty: boolean;
  shallow: boolean;
  /** Whether any tag is reachable from HEAD. */
  hasReachableTag: boolean;
}

/** The few git questions the toolkit asks about a source tree, one function, simple-git underneath. */
export async function readRepoInfo(dir: string): Promise<RepoInfo> {
  const git = simpleGit({ baseDir: dir }).env(gitEnv(process.env));
  const ask = async (args: string[]): Promise<string | null> => {
    try {
      return (await git.raw(args)).trim();
    } catch {
      return null;
    }
  };
  const commit = await ask(['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (!commit)
    return { commit: null, commitTime: null, dirty: false, shallow: false, hasReachableTag: false };
  const [time, status, shallow, tag] = await Promise.all([
    ask(['show', '-s', '--format=%ct', 'HEAD']),
    ask(['status', '--porcelain', '--untracked-files=no']),
    ask(['rev-parse', '--is-shallow-repository']),
    ask(['describe', '--tags', '--abbrev=0']),
  ]);
  return {
    commit,
    commitTime: time ? Number(time) : null,
    dirty: Boolean(status),
    shallow: shallow === 'true',
    hasReachableTag: Boolean(tag),
  };
}

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
