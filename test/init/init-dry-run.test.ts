import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { runRelease } from '../helpers/run-release.ts';
import { SHAPES } from './init-shapes.ts';

// init never writes a config its own next command refuses: on every fixture (its config removed)
// and every shape of test/init/init-shapes.ts, `release init --dry-run` (writing nothing, showing
// the config it then writes), `release init` and `release build --dry-run` all exit 0. A version ARG that a web image and a server image both read was written as both a
// server and a client variable, which the config refuses.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

const release = (repo: GitRepo, args: string[]) => runRelease(args, { cwd: repo.dir, timeoutMs: 240_000 });

function shapeRepo(name: string): GitRepo {
  const shape = SHAPES[name]!;
  const repo = GitRepo.create('init-shape-');
  repos.push(repo);
  for (const [path, text] of Object.entries(shape.files)) {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    writeFileSync(join(repo.dir, path), text);
  }
  repo.commit('service');
  for (const tag of shape.tags ?? []) repo.git('tag', tag);
  return repo;
}

function fixtureRepo(name: string): GitRepo {
  const repo = fixtureProject(name);
  repos.push(repo);
  rmSync(join(repo.dir, 'release.config.json'));
  return repo;
}

const cases: [string, () => GitRepo][] = [
  ...['acme-docker', 'acme-oci', 'baked-service', 'one-image', 'other-service'].map(
    (name): [string, () => GitRepo] => [`fixture ${name}`, () => fixtureRepo(name)],
  ),
  ...Object.keys(SHAPES).map((name): [string, () => GitRepo] => [name, () => shapeRepo(name)]),
];

describe('release init, then release build --dry-run on what it wrote', () => {
  it.each(cases)('%s', async (_, make) => {
    const repo = make();
    // init's own dry run: exit 0, nothing written, and the config it shows is the one it writes.
    const before = repo.git('status', '--porcelain', '--untracked-files=all');
    const preview = await release(repo, ['init', '--dry-run', '--json']);
    expect(preview.code, preview.stderr).toBe(0);
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe(before);
    const shown = (JSON.parse(preview.stdout) as { wouldWrite: { path: string; content?: string }[] })
      .wouldWrite;
    const init = await release(repo, ['init', '--yes', '--json']);
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, 'release.config.ts'), 'utf8')).toBe(
      shown.find((f) => f.path === 'release.config.ts')?.content,
    );
    const dryRun = await release(repo, ['build', '--dry-run']);
    expect(dryRun.code, `${dryRun.stdout}\n${dryRun.stderr}`).toBe(0);
  });

  it.each([
    ['a version ARG shared by two Dockerfiles', 'APP_VERSION'],
    ['a version ARG in a base stage shared by the api and web stages', 'APP_VERSION'],
  ])('%s: a server variable only, and said so', async (name, variable) => {
    const repo = shapeRepo(name);
    const init = await release(repo, ['init', '--yes', '--json', '--format', 'json']);
    expect(init.code, init.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    expect(config.versionVariables).toEqual({ server: [variable], client: [] });
    expect(JSON.parse(init.stdout).found).toContainEqual(
      expect.stringMatching(new RegExp(`^ARG ${variable}: read by the web image and a server image`)),
    );
  });

  it('a client variable read by every image stays a client name beside the shared server one', async () => {
    const repo = shapeRepo('a shared ARG and a client variable');
    const init = await release(repo, ['init', '--yes', '--json', '--format', 'json']);
    expect(init.code, init.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    expect(config.versionVariables).toEqual({ server: ['ACME_VERSION'], client: ['VITE_ACME_VERSION'] });
  });
});
