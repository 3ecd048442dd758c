import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { buildCommandEnv, runBuildCommand } from '../build/run-build-command.ts';
import { ExternalError, UsageError } from '../errors.ts';
import { gitEnv } from '../git/repo-info.ts';

export interface RebuildRequest {
  /** The project's folder (the config's); the checkout keeps its place in the repository. */
  projectDir: string;
  /** The rc's tag (`v3.1.0-rc.1`): the commit to build. */
  rcTag: string;
  /** The release's version, baked in as SERVICE_VERSION and SERVICE_CLIENT_VERSION. */
  version: string;
  /** `artifacts.<name>.build.command`, for messages. */
  at: string;
  command: readonly string[];
  /** The outputs to read back, relative to the project's folder. */
  outputs: readonly string[];
  /** Reads more of the checkout (the project's folder there) before it is removed. */
  collect?: (projectDir: string) => Promise<Map<string, Buffer>>;
  env: Record<string, string | undefined>;
  progress: (line: string) => void;
}

/**
 * Run an artifact's build command again on the rc's commit, with the release's version: in a
 * temporary `git worktree` (detached at the rc's commit; the user's tree and index are never
 * touched), removed afterwards whatever happens. Returns the outputs' bytes by their relative
 * path. The caller proves them equal to the rc's modulo version strings (compareRebuild) before
 * anything is written.
 */
export async function rebuildFromRc(request: RebuildRequest): Promise<Map<string, Buffer>> {
  const git = (args: string[], cwd = request.projectDir) =>
    execa('git', args, { cwd, env: gitEnv(process.env), extendEnv: false, reject: false, stdin: 'ignore' });
  const top = await git(['rev-parse', '--show-toplevel']);
  const commit = await git(['rev-parse', '--verify', '--quiet', `${request.rcTag}^{commit}`]);
  if (top.exitCode !== 0 || commit.exitCode !== 0)
    throw new UsageError(
      'RC_COMMIT_MISSING',
      `${request.at}: the rc ${request.rcTag} is not a tag of the repository at ${request.projectDir}, so it cannot be rebuilt as the release`,
      {
        hint: `fetch the tags (git fetch --tags), or declare reversion: "keep" or "in-place" for this artifact`,
      },
    );
  const root = String(top.stdout).trim();
  const scratch = await mkdtemp(join(tmpdir(), 'release-rebuild-'));
  const tree = join(scratch, 'tree');
  try {
    const added = await git(['worktree', 'add', '--detach', tree, String(commit.stdout).trim()], root);
    if (added.exitCode !== 0)
      throw new ExternalError(
        'REBUILD_CHECKOUT_FAILED',
        `git worktree add failed: ${String(added.stderr).trim()}`,
        {
          hint: 'nothing was written; check that git can write to the repository',
        },
      );
    const cwd = join(tree, relative(root, request.projectDir));
    request.progress(
      `rebuilding ${request.rcTag}'s commit as ${request.version}: ${request.command.join(' ')}`,
    );
    await runBuildCommand({
      at: request.at,
      command: request.command,
      cwd,
      env: buildCommandEnv(request.env, request.version),
      progress: request.progress,
    });
    const out = new Map<string, Buffer>();
    for (const path of request.outputs) {
      const bytes = await readFile(join(cwd, path)).catch(() => undefined);
      if (!bytes)
        throw new ExternalError(
          'REBUILD_OUTPUT_MISSING',
          `${request.at}: the rebuild of ${request.rcTag} wrote no ${path}`,
          {
            hint: 'nothing was written; the build command must write the same outputs at every commit',
          },
        );
      out.set(path, bytes);
    }
    if (request.collect) for (const [path, bytes] of await request.collect(cwd)) out.set(path, bytes);
    return out;
  } finally {
    await git(['worktree', 'remove', '--force', tree], root);
    await rm(scratch, { recursive: true, force: true });
    await git(['worktree', 'prune'], root);
  }
}
