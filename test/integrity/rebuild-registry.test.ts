import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import type { ImageStore } from '../../src/registry/store.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';

// fixtures/acme-oci built with `--push` into a real docker-registry: the build writes only its
// build-<commit> tag, so rebuilding after an rc and after the release leaves every version tag
// and latest where promotion put them; and the versions of a promotion must match its images.

const RC1 = 'v1.0.0-rc.1';
const RC2 = 'v1.0.0-rc.2';
const RELEASE = 'v1.0.0';
const PASSPHRASE = 'rebuild-registry-passphrase';
const IMAGES = ['acme/acme-api', 'acme/acme-worker', 'acme/acme-web'];

describe('rebuilds and version rules against a real registry', () => {
  let registry: RunningRegistry;
  let repo: GitRepo;
  let store: ImageStore;
  const release = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
    runRelease([...args, '--json'], {
      cwd: repo.dir,
      env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE, ...env },
      timeoutMs: 240_000,
    });
  const ok = async (args: string[], env: Record<string, string> = {}) => {
    const result = await release(args, env);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    return jsonOf<{ warnings: string[] } & Record<string, unknown>>(result);
  };
  const refused = async (args: string[], exit: number, code: string) => {
    const result = await release(args);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(exit);
    expect(jsonOf<{ error: { code: string } }>(result).error.code).toBe(code);
    return result;
  };
  /** Every tag of every image, with its digest (signature indexes, `sha256-<hex>`, left out). */
  const tags = async () => {
    const found: Record<string, string | undefined> = {};
    for (const image of IMAGES)
      for (const tag of (await store.listTags(image)).filter((t) => !t.startsWith('sha256-')))
        found[`${image}:${tag}`] = (await store.resolve(image, tag))?.digest;
    return found;
  };
  const channelTags = async () =>
    Object.fromEntries(Object.entries(await tags()).filter(([ref]) => !/:build-[0-9a-f]{12}$/.test(ref)));

  beforeAll(async () => {
    registry = await startRegistry();
    repo = fixtureProject('acme-oci', { registry: `${registry.host}/acme` });
    repo.commit('acme');
    repo.tag(RC1);
    store = openStore(registry.host, { cwd: repo.dir, env: {} });
    await ok(['stamp']);
    await ok(['build', '--engine', 'oci', '--push']);
    await ok(['keygen', '--out', 'keys']);
    await ok(['promote', '--channel', 'rc']);
  }, 300_000);
  afterAll(async () => {
    await registry?.stop();
    repo?.remove();
  });

  it('the build pushed only build-<commit>; the rc is tagged by its promotion', async () => {
    const all = await tags();
    const build = `build-${repo.head().slice(0, 12)}`;
    for (const image of IMAGES) {
      expect(all[`${image}:${build}`]).toBe(all[`${image}:${RC1}`]);
      expect(
        Object.keys(all)
          .filter((ref) => ref.startsWith(`${image}:`))
          .sort(),
      ).toEqual([`${image}:${build}`, `${image}:${RC1}`].sort());
    }
  });

  it('refuses an rc promotion whose version is not the build’s (exit 2), writing nothing', async () => {
    const before = await tags();
    await refused(['promote', '--channel', 'rc', '--version', RC2], 2, 'VERSION_MISMATCH');
    expect(await tags()).toEqual(before);
  });

  it('a rebuild of the rc with other bytes leaves the rc tag; promoting it is refused', async () => {
    const before = await channelTags();
    const rebuilt = await ok(['build', '--engine', 'oci', '--push'], { SOURCE_DATE_EPOCH: '1600000000' });
    expect(rebuilt.warnings.join('\n')).toContain(`${RC1} already exists with other bytes`);
    expect(await channelTags()).toEqual(before);
    await refused(['promote', '--channel', 'rc'], 1, 'TAG_IMMUTABLE');
    expect(await channelTags()).toEqual(before);
  }, 240_000);

  it('releases only an rc of the same X.Y.Z, and says when a newer rc exists', async () => {
    repo.commit('fix');
    repo.tag(RC2);
    await ok(['stamp']);
    await ok(['build', '--engine', 'oci', '--push']);
    await ok(['promote', '--channel', 'rc']);
    const before = await tags();

    const older = await ok([
      'promote',
      '--channel',
      'release',
      '--from',
      RC1,
      '--version',
      RELEASE,
      '--dry-run',
    ]);
    expect(older.warnings.join('\n')).toMatch(
      /from v1\.0\.0-rc\.1, but v1\.0\.0-rc\.2 of the same version is newer/,
    );
    const newest = await ok([
      'promote',
      '--channel',
      'release',
      '--from',
      RC2,
      '--version',
      RELEASE,
      '--dry-run',
    ]);
    expect(newest.warnings.join('\n')).not.toContain('newer');

    await refused(
      ['promote', '--channel', 'release', '--from', RC2, '--version', 'v3.0.0'],
      2,
      'VERSION_MISMATCH',
    );
    expect(await tags()).toEqual(before);
  }, 300_000);

  it('a rebuild after the release leaves the version tags and latest where promotion put them', async () => {
    repo.tag(RELEASE);
    await ok(['promote', '--channel', 'release', '--from', RC2, '--version', RELEASE]);
    const released = await channelTags();
    for (const image of IMAGES) {
      expect(released[`${image}:latest`]).toBe(released[`${image}:${RELEASE}`]);
      expect(released[`${image}:${RELEASE}`]).not.toBe(released[`${image}:${RC2}`]);
    }

    const stamped = await ok(['stamp']);
    expect(stamped).toMatchObject({ version: RELEASE, channel: 'release' });
    const rebuilt = await ok(['build', '--engine', 'oci', '--push']);
    expect(rebuilt.warnings.join('\n')).toContain(`${RELEASE} already exists with other bytes`);
    expect(await channelTags()).toEqual(released);
    await refused(['promote', '--channel', 'release'], 1, 'RELEASE_NOT_SIGNED');
    expect(await channelTags()).toEqual(released);
  }, 300_000);
});
