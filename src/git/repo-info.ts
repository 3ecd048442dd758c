import { simpleGit } from 'simple-git';
import { withoutGitEnv } from '../version/git-describe.ts';

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
  const git = simpleGit({ baseDir: dir }).env(withoutGitEnv(process.env) as Record<string, string>);
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
