import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';

// The release bundle (bin/release.js, as installed) keeps a config the validator accepted under
// node_modules/.cache/service-release/validated, so the next run with the same config and the
// same toolkit does not load the validator. What must hold: the same config gives the same
// answer, a changed one is validated again, and an invalid one is always refused.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function project(config: object): GitRepo {
  const repo = GitRepo.create('validated-cache-');
  repos.push(repo);
  repo.write('.gitignore', 'node_modules/\n');
  repo.write('release.config.json', JSON.stringify(config));
  repo.commit('initial');
  repo.annotatedTag('v1.0.0');
  mkdirSync(join(repo.dir, 'node_modules'));
  return repo;
}

const stamp = (repo: GitRepo) =>
  runRelease(['stamp', '--dry-run', '--json'], { cwd: repo.dir, subprocess: true });
/** The registry and repository of the API image stamp would tag (the tag moves once the tree is dirty). */
const apiRepository = (result: RunResult) =>
  jsonOf<{ references: Record<string, string[]> }>(result).references['api']?.[0]?.replace(/:[^:/]+$/, '');

describe('the validated config cache of the release bundle', () => {
  it('answers a second run from the cache, validates a changed config, and never keeps a refusal', async () => {
    const repo = project({ registry: 'localhost:5000/acme' });
    const cache = join(repo.dir, 'node_modules/.cache/service-release/validated');
    const first = await stamp(repo);
    expect(first.code, first.stderr).toBe(0);
    const kept = readdirSync(cache);
    expect(kept).toHaveLength(1);
    expect(apiRepository(first)).toBe('localhost:5000/acme/service-api');

    // The second run reads the kept answer: shown by a kept answer altered on disk.
    const entry = join(cache, kept[0]!);
    writeFileSync(
      entry,
      readFileSync(entry, 'utf8').replaceAll('localhost:5000/acme', 'localhost:5000/kept'),
    );
    const second = await stamp(repo);
    expect(second.code, second.stderr).toBe(0);
    expect(apiRepository(second)).toBe('localhost:5000/kept/service-api');

    // A changed config is validated afresh.
    repo.write('release.config.json', JSON.stringify({ registry: 'localhost:5000/changed' }));
    const changed = await stamp(repo);
    expect(apiRepository(changed)).toBe('localhost:5000/changed/service-api');
    expect(readdirSync(cache)).toHaveLength(2);

    // An invalid one is refused every time, and nothing is kept for it.
    repo.write('release.config.json', JSON.stringify({ registry: 'localhost:5000/acme', registy: 'x' }));
    for (let i = 0; i < 2; i++) {
      const refused = await stamp(repo);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('registy: unknown key');
    }
    expect(readdirSync(cache)).toHaveLength(2);
  });
});
