import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureProject, TOOLKIT_ROOT } from '../fixtures/fixture-project.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// `release init` in repositories as teams have them: each fixture with its config removed, and a
// bare repository with two Dockerfiles and a Python CLI. What it writes must pass `release build
// --dry-run` as written (and, for acme-oci, a real daemonless build); a second init must refuse.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function withoutConfig(fixture: string): GitRepo {
  const repo = fixtureProject(fixture);
  repos.push(repo);
  rmSync(join(repo.dir, 'release.config.json'));
  return repo;
}

/** repo.write, with the folders it needs. */
function put(repo: GitRepo, path: string, text: string): void {
  mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
  repo.write(path, text);
}

const release = (repo: GitRepo, args: string[]) => runRelease(args, { cwd: repo.dir, timeoutMs: 240_000 });

describe('release init', () => {
  it('acme-docker: a commented release.config.ts that build --dry-run accepts for the docker engine; a second init refuses', async () => {
    const repo = withoutConfig('acme-docker');
    const init = await release(repo, ['init', '--yes', '--name', 'acme']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/found:\n {2}- api\/Dockerfile/);
    expect(init.stdout).toContain('guessed (check these):');
    expect(init.stdout).toContain('still to fill in:');
    const written = readFileSync(join(repo.dir, 'release.config.ts'), 'utf8');
    expect(written).toContain("import { defineConfig } from 'service-release';");
    expect(written).toContain('// found: api/Dockerfile');
    expect(written).toContain("cliArchive: 'acme-cli.tar.gz'");

    const dryRun = await release(repo, ['build', '--dry-run', '--json']);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const verdict = jsonOf<{
      usable: string[];
      engines: { engine: string; builds: Record<string, string> }[];
    }>(dryRun);
    expect(verdict.usable).toContain('docker');
    expect(Object.keys(verdict.engines.find((e) => e.engine === 'docker')!.builds).sort()).toEqual([
      'api',
      'cli',
      'scheduler',
      'web',
      'worker',
    ]);
    // Nothing built or written: no record, no store.
    expect(existsSync(join(repo.dir, 'dist'))).toBe(false);
    expect(existsSync(join(repo.dir, '.release'))).toBe(false);

    const again = await release(repo, ['init', '--yes']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('release.config.ts already exists');
    expect(readFileSync(join(repo.dir, 'release.config.ts'), 'utf8')).toBe(written);
  });

  it('acme-oci: release.config.json with its $schema line, a real daemonless build from it', async () => {
    const repo = withoutConfig('acme-oci');
    put(repo, '.github/workflows/test.yml', 'on: push\njobs: {}\n');
    repo.commit('project');
    repo.annotatedTag('v1.0.0');
    const init = await release(repo, ['init', '--yes', '--name', 'acme', '--format', 'json', '--json']);
    expect(init.code, init.stderr).toBe(0);
    const out = jsonOf<{ written: { path: string }[]; found: string[]; todo: string[] }>(init);
    expect(out.written.map((w) => w.path)).toEqual(['release.config.json', '.github/workflows/release.yml']);
    expect(out.found).toContain('cli/pyproject.toml: Python CLI acme');
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    expect(config.$schema).toBe('./node_modules/service-release/config.schema.json');
    // The workflow for this config: the daemonless engine (every image has a recipe), its base made
    // on the runner, nothing pushed to a layout the runner throws away (test/init/pipelines.test.ts lints it).
    const workflow = readFileSync(join(repo.dir, '.github/workflows/release.yml'), 'utf8');
    expect(workflow).toContain('run: npx release base-image');
    expect(workflow).toContain('npx release build --engine oci --json');
    expect(workflow).not.toContain('dockerode');
    expect(config.signing).toEqual({ publicKey: 'release-signing.pub' });

    const dryRun = await release(repo, ['build', '--dry-run', '--engine', 'oci']);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain('oci: would build');

    repo.commit('release config');
    expect((await release(repo, ['stamp'])).code).toBe(0);
    const build = await release(repo, ['build', '--engine', 'oci', '--json']);
    expect(build.code, build.stderr).toBe(0);
    const built = jsonOf<{ images: Record<string, { digest: string }>; cli: { archive: string } }>(build);
    expect(Object.keys(built.images).sort()).toEqual(['api', 'web', 'worker']);
    expect(built.cli.archive).toBe('dist/acme-cli.tar.gz');

    const again = await release(repo, ['init', '--yes', '--format', 'json']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('release.config.json, .github/workflows/release.yml already exist');
  });

  it('a bare repository with two Dockerfiles and a Python CLI; --force keeps the edits, replaces the registry named and shows the difference', async () => {
    const repo = GitRepo.create('init-bare-');
    repos.push(repo);
    put(
      repo,
      'api/Dockerfile',
      'FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nRUN pip install .\nCMD ["gunicorn", "app:app"]\n',
    );
    put(
      repo,
      'Dockerfile.worker',
      'FROM python:3.12-slim AS base\nRUN pip install celery\nFROM base AS runtime\nCOPY worker /app/worker\nCMD ["celery", "-A", "worker", "worker"]\n',
    );
    put(
      repo,
      'cli/pyproject.toml',
      '[project]\nname = "bare-cli"\nversion = "0.1.0"\n\n[project.scripts]\nbare = "bare_cli:main"\n',
    );
    put(repo, 'worker/tasks.py', 'def run(): pass\n');
    repo.commit('service');
    mkdirSync(join(repo.dir, 'node_modules'));
    symlinkSync(TOOLKIT_ROOT, join(repo.dir, 'node_modules/service-release'), 'dir');

    const init = await release(repo, ['init', '--yes', '--name', 'bare', '--json']);
    expect(init.code, init.stderr).toBe(0);
    const out = jsonOf<{ found: string[]; guessed: string[]; todo: string[] }>(init);
    expect(out.found).toEqual(expect.arrayContaining(['Dockerfile.worker', 'api/Dockerfile']));
    expect(out.guessed).toEqual(
      expect.arrayContaining(['artifacts.api.image: "bare-api"', 'artifacts.worker.image: "bare-worker"']),
    );
    expect(out.todo).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^artifacts\.cli\.build/),
        expect.stringMatching(/^CI: /),
      ]),
    );
    const written = readFileSync(join(repo.dir, 'release.config.ts'), 'utf8');
    expect(written).toContain('docker engine only: it starts FROM python:3.12-slim');
    expect(written).toContain("installCommand: 'pipx install --force {url}'");
    expect(written).toContain('web: false');

    const dryRun = await release(repo, ['build', '--dry-run', '--json']);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const verdict = jsonOf<{
      usable: string[];
      engines: { engine: string; builds: Record<string, string> }[];
    }>(dryRun);
    expect(verdict.usable).toEqual(['docker']);
    expect(verdict.engines[0]!.builds['worker']).toContain('from Dockerfile.worker');

    // A target the Dockerfile does not have is caught by the dry run, before any engine runs.
    repo.write(
      'release.config.ts',
      written.replace("dockerfile: 'Dockerfile.worker'", "dockerfile: 'Dockerfile.worker', target: 'nope'"),
    );
    const badTarget = await release(repo, ['build', '--dry-run', '--engine', 'docker']);
    expect(badTarget.code).toBe(2);
    expect(badTarget.stdout).toContain('Dockerfile.worker has no stage "nope" (it has base, runtime)');

    const again = await release(repo, ['init', '--yes']);
    expect(again.code).toBe(1);
    const forced = await release(repo, ['init', '--yes', '--force', '--registry', 'ghcr.io/bare']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('replacing release.config.ts');
    expect(forced.stderr).toContain("+  registry: 'ghcr.io/bare',");
    // The user's edit since (a target) is kept, and said so; only the registry named changes.
    expect(forced.stderr).not.toMatch(/^-.*target: 'nope'/m);
    expect(forced.stdout).toContain('artifacts.worker.target: yours, kept (init would not write it)');
  });
});
