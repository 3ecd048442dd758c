import { execFile } from 'node:child_process';
import { highestVersionTag, VERSION_TAG_GLOBS, versionOfCommit } from '../version/commit-version.ts';
import { parseVersion } from '../version/parse.ts';

/** One git command's trimmed output, or null when it failed or printed nothing. */
export type GitRunner = (args: string[]) => Promise<string | null>;

/**
 * The version a commit's tags mean (`versionOfCommit`): `git describe --tags --always --dirty`
 * over version-like tags only, and the tags on HEAD (the highest wins, annotated or not); for a
 * description, the tags on its base commit too (several version tags there: the highest).
 * One git process more than a bare describe (none when the caller knows the tags on HEAD), one
 * more for a description.
 */
export async function describeCommit(
  run: GitRunner,
  /** The tags on HEAD, when the caller already asks git for them (readRepoInfo's `git log`). */
  tagsAtHead?: Promise<string[]>,
): Promise<string | null> {
  const match = VERSION_TAG_GLOBS.flatMap((glob) => ['--match', glob]);
  const [describe, atHead] = await Promise.all([
    run(['describe', '--tags', '--always', '--dirty', ...match]),
    tagsAtHead ?? run(['tag', '--points-at', 'HEAD']).then(lines),
  ]);
  if (!describe) return null;
  const described = parseVersion(describe);
  const atBase =
    !highestVersionTag(atHead) && described.kind === 'describe'
      ? lines(await run(['tag', '--points-at', `refs/tags/${described.baseTag}^{commit}`]))
      : undefined;
  return versionOfCommit({ describe, atHead, ...(atBase ? { atBase } : {}) });
}

function lines(text: string | null): string[] {
  return (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * The version of the commit checked out in `dir` (`describeCommit`). Deliberately plain
 * `node:child_process` rather than simple-git: this runs inside the reference API and worker at
 * start-up, whose bundles should not carry a git library for a few calls.
 *
 * Returns undefined when git is missing, `dir` is not in a work tree, or git fails.
 */
export async function gitDescribe(dir: string, timeoutMs = 5_000): Promise<string | undefined> {
  const run: GitRunner = (args) =>
    new Promise((resolve) => {
      execFile(
        'git',
        args,
        // GIT_DIR and friends from the caller (a git hook, say) would point git at another
        // repository: the version must come from the artifact's own tree.
        { cwd: dir, timeout: timeoutMs, env: withoutGitEnv(process.env), windowsHide: true },
        (error, stdout) => {
          const out = String(stdout ?? '').trim();
          resolve(error || out === '' ? null : out);
        },
      );
    });
  return (await describeCommit(run)) ?? undefined;
}

export function withoutGitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR'].includes(key)) clean[key] = value;
  }
  return clean;
}
