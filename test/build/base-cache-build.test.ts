import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// Through `release build`: two fresh projects on one machine, each without its base. The first
// build makes the base's layer and keeps it in the cache (RELEASE_CACHE_DIR); the second takes it
// from there, told by the cache entry (not rewritten: same inode and times) and by what the build
// says, never by timing. RELEASE_NO_CACHE=1 makes it again and leaves the cache alone.

describe('release build and the base layer cache', () => {
  const cache = mkdtempSync(join(tmpdir(), 'sr-base-cache-build-'));
  const repos: GitRepo[] = [];
  afterAll(() => {
    for (const repo of repos) repo.remove();
    rmSync(cache, { recursive: true, force: true });
  });

  async function build(env: Record<string, string>) {
    const repo = GitRepo.create('base-cache-build-');
    repos.push(repo);
    repo.write('.gitignore', 'dist/\n.release/\n');
    mkdirSync(join(repo.dir, 'app'));
    repo.write('app/main.mjs', 'console.log("hi");\n');
    repo.write(
      'release.config.json',
      JSON.stringify({
        registry: 'oci-layout:.release/oci',
        artifacts: {
          api: {
            image: 'app',
            files: [{ from: 'app', to: '/app' }],
            entrypoint: ['/usr/local/bin/node', '/app/main.mjs'],
          },
          worker: false,
          web: false,
          cli: false,
        },
      }),
    );
    repo.commit('app');
    expect((await runRelease(['stamp', '--json'], { cwd: repo.dir })).code).toBe(0);
    const built = await runRelease(['build', '--engine', 'oci', '--json'], {
      cwd: repo.dir,
      env: { RELEASE_CACHE_DIR: cache, ...env },
      timeoutMs: 180_000,
    });
    expect(built.code, built.stderr).toBe(0);
    const out = jsonOf<{ warnings: string[]; images: Record<string, { digest: string }> }>(built);
    return {
      warning: out.warnings.find((w) => w.includes("this machine's node"))!,
      digest: out.images['api']!.digest,
    };
  }
  const entries = () => readdirSync(join(cache, 'base-layers')).filter((n) => n.endsWith('.json'));
  const identity = (name: string) => {
    const s = statSync(join(cache, 'base-layers', name), { bigint: true });
    return `${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
  };

  it('the second project takes the base layer from the cache, which the first filled', async () => {
    const first = await build({});
    expect(first.warning).toContain('its layer kept in the cache');
    expect(entries()).toHaveLength(1);
    const before = identity(entries()[0]!);

    const second = await build({});
    expect(second.warning).toContain('its layer from the cache');
    expect(entries()).toHaveLength(1);
    expect(identity(entries()[0]!)).toBe(before);
    // Same node, same epoch: the same image either way.
    expect(second.digest).toBe(first.digest);

    const off = await build({ RELEASE_NO_CACHE: '1' });
    expect(off.warning).not.toContain('cache');
    expect(off.digest).toBe(first.digest);
    expect(identity(entries()[0]!)).toBe(before);
  }, 400_000);
});
