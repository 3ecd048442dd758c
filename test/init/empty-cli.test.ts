import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { runRelease } from '../helpers/run-release.ts';

// What init's guessed CLI build once got away with: `python -m build --sdist` of the wrong folder
// makes an archive of PKG-INFO and pyproject.toml alone, which installs nothing. release build
// refuses an archive with no code file (exit 2, the files named); one with code builds.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function project(withCode: boolean): GitRepo {
  const repo = GitRepo.create('empty-cli-');
  repos.push(repo);
  const staged = 'dist/p/acme-0.1';
  const script = [
    `mkdir -p ${staged}/acme`,
    `printf 'Name: acme\\n' > ${staged}/PKG-INFO`,
    `printf '[project]\\nname = "acme"\\n' > ${staged}/pyproject.toml`,
    ...(withCode ? [`printf 'def main(): pass\\n' > ${staged}/acme/cli.py`] : []),
    'tar -czf dist/acme-cli.tar.gz -C dist/p acme-0.1',
  ].join(' && ');
  const config = {
    registry: 'oci-layout:.release/oci',
    artifacts: {
      api: false,
      worker: false,
      web: false,
      cli: { package: 'acme-cli', build: { command: ['sh', '-c', script], archive: 'dist/acme-cli.tar.gz' } },
    },
  };
  mkdirSync(repo.dir, { recursive: true });
  writeFileSync(join(repo.dir, 'release.config.json'), JSON.stringify(config));
  writeFileSync(join(repo.dir, '.gitignore'), 'dist/\n.release/\n');
  repo.commit('cli');
  return repo;
}

describe('release build and a CLI archive with no code', () => {
  it('refuses an archive of packaging metadata only, and builds one with code', async () => {
    const empty = project(false);
    expect((await runRelease(['stamp'], { cwd: empty.dir })).code).toBe(0);
    const refused = await runRelease(['build', '--only', 'cli'], { cwd: empty.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'artifacts.cli.build.archive: "dist/acme-cli.tar.gz" holds no code files (acme-0.1/PKG-INFO, acme-0.1/pyproject.toml)',
    );

    const real = project(true);
    expect((await runRelease(['stamp'], { cwd: real.dir })).code).toBe(0);
    const built = await runRelease(['build', '--only', 'cli'], { cwd: real.dir });
    expect(built.code, built.stderr).toBe(0);
  });
});
