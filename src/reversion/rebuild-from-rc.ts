import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { buildCommandEnv, runBuildCommand } from '../build/run-build-command.ts';
import { ExternalError, ReleaseError, UsageError } from '../errors.ts';
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
  /**
   * Commands run in the checkout before the build (`npm ci`): the dependencies a fresh checkout
   * lacks. Undefined: the default for the lockfile the checkout holds (defaultSetup); `[]`: none.
   */
  setup?: readonly (readonly string[])[] | undefined;
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
 * touched), after its setup commands (its dependencies, which a fresh checkout lacks). The
 * checkout is removed once its outputs are read; when the setup or the build fails it is kept,
 * and the error names it, so the user can run the command there. Returns the outputs' bytes by their relative
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
  let keep = false;
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
    const env = buildCommandEnv(request.env, request.version);
    const setup = request.setup ?? defaultSetup(cwd);
    try {
      for (const [i, command] of setup.entries()) {
        request.progress(`setup: ${command.join(' ')}`);
        await runBuildCommand({
          at: `${request.at.replace(/\.command$/, '')}.setup[${i}]`,
          command,
          cwd,
          env,
          progress: request.progress,
        });
      }
      await runBuildCommand({
        at: request.at,
        command: request.command,
        cwd,
        env,
        progress: request.progress,
      });
    } catch (error) {
      keep = true;
      throw keptCheckout(error, tree, cwd);
    }
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
    if (!keep) await removeCheckout(git, root, tree, scratch);
  }
}

async function removeCheckout(
  git: (args: string[], cwd?: string) => Promise<{ exitCode?: number | undefined }>,
  root: string,
  tree: string,
  scratch: string,
): Promise<void> {
  await git(['worktree', 'remove', '--force', tree], root);
  await rm(scratch, { recursive: true, force: true });
  await git(['worktree', 'prune'], root);
}

/** Whether `rcTag` names a commit of the repository at `projectDir` (so a rebuild can check it out). */
export async function rcCommitExists(projectDir: string, rcTag: string): Promise<boolean> {
  const found = await execa('git', ['rev-parse', '--verify', '--quiet', `${rcTag}^{commit}`], {
    cwd: projectDir,
    env: gitEnv(process.env),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  return found.exitCode === 0;
}

/** Lockfiles whose dependencies a build needs installed, and the command that installs them as locked. */
const LOCKFILES: readonly [string, readonly string[]][] = [
  ['package-lock.json', ['npm', 'ci']],
  ['npm-shrinkwrap.json', ['npm', 'ci']],
  ['pnpm-lock.yaml', ['pnpm', 'install', '--frozen-lockfile']],
  ['yarn.lock', ['yarn', 'install', '--frozen-lockfile']],
];

/**
 * The setup a checkout needs when none is declared: its lockfile's install (`npm ci` for a
 * package-lock.json), when the project's folder has one and no installed dependencies. A Python
 * project declares its own (`pip install -r requirements.txt`): where it installs is its choice.
 */
export function defaultSetup(cwd: string): string[][] {
  if (existsSync(join(cwd, 'node_modules'))) return [];
  const found = LOCKFILES.find(([file]) => existsSync(join(cwd, file)));
  return found ? [[...found[1]]] : [];
}

/** The failure of a setup or build command in the kept checkout, saying where it is. */
function keptCheckout(error: unknown, tree: string, cwd: string): unknown {
  if (!(error instanceof ReleaseError)) return error;
  return new ExternalError(error.code, error.message, {
    hint: `nothing was written; the checkout of the rc's commit is kept at ${cwd}: run the command there to see why, then remove it with \`git worktree remove --force ${tree}\``,
    cause: error,
  });
}
