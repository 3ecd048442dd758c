import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ExternalError } from '../../errors.ts';
import { packageRoot } from '../../files/package-root.ts';
import { withoutGitEnv } from '../../version-source/git-describe.ts';

const TOOLKIT_ROOT = packageRoot();

/** What of this repository the rehearsal repository is made from: the reference service itself. */
const REFERENCE_PATHS = ['src/service', 'templates/docker'];

export async function makeWorkspace(): Promise<string> {
  try {
    return await mkdtemp(join(tmpdir(), 'service-release-rehearsal-'));
  } catch (error) {
    throw new ExternalError(
      'WORKSPACE_FAILED',
      `cannot make a temporary workspace in ${tmpdir()}: ${(error as Error).message}`,
      {
        hint: 'point TMPDIR at a writable directory with a few hundred MB free',
        cause: error,
      },
    );
  }
}

/**
 * A fresh git repository holding the reference service, committed once with a fixed identity and
 * date (never the user's git config), so `git describe` in it is exactly what the rehearsal tags.
 * Its `release.config.mjs` declares the artifacts as any project would, from the toolkit's
 * `service-release/reference` export (linked in as `node_modules/service-release`), with `config`.
 */
export async function makeRehearsalRepo(workspace: string, config: object): Promise<string> {
  const repo = join(workspace, 'service');
  await mkdir(join(repo, 'node_modules'), { recursive: true });
  for (const path of REFERENCE_PATHS)
    await cp(join(TOOLKIT_ROOT, path), join(repo, path), { recursive: true });
  await symlink(TOOLKIT_ROOT, join(repo, 'node_modules', 'service-release'), 'dir');
  await writeFile(
    join(repo, 'release.config.mjs'),
    // `config.artifacts.cli` (rehearse --publish) is merged into the reference CLI artifact.
    `import { referenceArtifacts } from 'service-release/reference';\n\nconst base = referenceArtifacts();\nconst config = ${JSON.stringify(config)};\nconst cli = config.artifacts?.cli;\n\nexport default { ...config, artifacts: cli ? { ...base, cli: { ...base.cli, ...cli } } : base };\n`,
  );
  await writeFile(join(repo, '.gitignore'), 'dist/\n.release/\nnode_modules/\n');
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'The reference service');
  return repo;
}

export async function gitTag(repo: string, tag: string): Promise<void> {
  await git(repo, 'tag', '-a', tag, '-m', tag);
}

/**
 * A PATH for the rehearsal's own commands: the given bin directories first, then a directory
 * holding only `node` (so an `svc` installed elsewhere on this machine cannot be picked up),
 * then the system directories for git and npm's helpers.
 */
export async function isolatedPath(workspace: string, first: string[]): Promise<string> {
  const nodeDir = join(workspace, 'node-bin');
  await mkdir(nodeDir, { recursive: true });
  await symlink(process.execPath, join(nodeDir, 'node')).catch(() => undefined);
  const npmDir = join(process.execPath, '..');
  return [...first, nodeDir, npmDir, '/usr/bin', '/bin'].join(':');
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const date = '2026-01-01T00:00:00Z';
  const result = await execa('git', args, {
    cwd,
    env: {
      ...withoutGitEnv(process.env),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Release Rehearsal',
      GIT_AUTHOR_EMAIL: 'rehearsal@example.invalid',
      GIT_COMMITTER_NAME: 'Release Rehearsal',
      GIT_COMMITTER_EMAIL: 'rehearsal@example.invalid',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
    extendEnv: false,
    reject: false,
  });
  if ((result as { code?: string }).code === 'ENOENT') {
    throw new ExternalError(
      'GIT_MISSING',
      'git is not installed or not on PATH; the rehearsal makes a git repository',
      {
        hint: 'install git (apt-get install git) and run the rehearsal again',
      },
    );
  }
  if (result.exitCode !== 0) {
    throw new ExternalError('GIT_FAILED', `git ${args.join(' ')} failed: ${result.stderr.trim()}`);
  }
}
