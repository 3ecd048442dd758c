import { execFile } from 'node:child_process';

/**
 * `git describe --tags --always --dirty` in one directory. Deliberately plain `node:child_process`
 * rather than simple-git: this runs inside the reference API and worker at start-up, whose bundles
 * should not carry a git library for one call.
 *
 * Returns undefined when git is missing, `dir` is not in a work tree, or git fails.
 */
export function gitDescribe(dir: string, timeoutMs = 5_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['describe', '--tags', '--always', '--dirty'],
      // GIT_DIR and friends from the caller (a git hook, say) would point git at another
      // repository: the version must come from the artifact's own tree.
      { cwd: dir, timeout: timeoutMs, env: withoutGitEnv(process.env), windowsHide: true },
      (error, stdout) => {
        const out = String(stdout ?? '').trim();
        resolve(error || out === '' ? undefined : out);
      },
    );
  });
}

export function withoutGitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR'].includes(key)) clean[key] = value;
  }
  return clean;
}
