import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalWrite } from '../../src/channels/journal-recovery.ts';
import { currentHolder } from '../../src/files/holder.ts';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';
import { ARTIFACTS, type Artifact, digestsOf, pushRelease, REPOS } from './project.ts';

// The journal a killed promotion leaves, recovered by whoever opens the store next (here a reader
// opening the layout as every command does): rolled forward when it can be, back when an image
// is gone; a journal whose process still runs is left alone; an unreadable one is set aside.
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const deadPid = () =>
  Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout.toString());

async function layoutWithRelease() {
  const root = mkdtempSync(join(tmpdir(), 'sr-recover-'));
  roots.push(root);
  const store = new LayoutStore(root);
  const old = await pushRelease(store, ['v1.1.0', 'latest']);
  const built = await pushRelease(store, []);
  return { root, store, old, built };
}

/** The journal of a release of v1.2.0 that wrote `written` of its version tags, then died. */
function leaveJournal(
  root: string,
  old: Record<Artifact, string>,
  built: Record<Artifact, string>,
  pid: number,
) {
  const writes: JournalWrite[] = [
    ...ARTIFACTS.map((a) => ({
      artifact: a,
      repository: REPOS[a],
      tag: 'v1.2.0',
      kind: 'version' as const,
      from: null,
      to: built[a],
    })),
    ...ARTIFACTS.map((a) => ({
      artifact: a,
      repository: REPOS[a],
      tag: 'latest',
      kind: 'floating' as const,
      from: old[a],
      to: built[a],
    })),
  ];
  const dir = join(root, '.journal');
  mkdirSync(dir, { recursive: true });
  const journal = {
    schema: 1,
    holder: { ...currentHolder(30_000, 'test'), pid, host: hostname() },
    channel: 'release',
    tag: 'v1.2.0',
    artifacts: ARTIFACTS.map((a) => ({ artifact: a, repository: REPOS[a] })),
    writes,
  };
  writeFileSync(join(dir, `${pid}-test.promotion.json`), JSON.stringify(journal));
  return dir;
}

const reader = (root: string, notices: string[]) =>
  openStore(`oci-layout:${root}`, { cwd: root, env: {}, notice: (t) => notices.push(t) });

describe('recovering a promotion journal', () => {
  it('rolls forward: the missing version tags are written and latest settled, with a notice', async () => {
    const { root, store, old, built } = await layoutWithRelease();
    const api = (await store.getManifest(REPOS.api, built.api))!;
    await store.putManifest(REPOS.api, 'v1.2.0', api.bytes, api.descriptor.mediaType);
    const dir = leaveJournal(root, old, built, deadPid());
    const notices: string[] = [];
    expect(await digestsOf(reader(root, notices), 'v1.2.0')).toEqual(built);
    expect(await digestsOf(store, 'latest')).toEqual(built);
    expect(readdirSync(dir)).toEqual([]);
    expect(notices.join('\n')).toMatch(
      /interrupted promotion of v1.2.0 \(release\).*gone \(pid \d+ on this host is no longer running\).*2 missing tag write/s,
    );
  });

  it('rolls back when an image is gone: the written version tag is removed, latest stays', async () => {
    const { root, store, old, built } = await layoutWithRelease();
    const api = (await store.getManifest(REPOS.api, built.api))!;
    await store.putManifest(REPOS.api, 'v1.2.0', api.bytes, api.descriptor.mediaType);
    const gone = { ...built, web: makeImage({ size: 64 }).descriptor.digest }; // never pushed
    leaveJournal(root, old, gone, deadPid());
    const notices: string[] = [];
    expect(await digestsOf(reader(root, notices), 'v1.2.0')).toEqual({ api: null, web: null, worker: null });
    expect(await digestsOf(store, 'latest')).toEqual(old);
    expect(notices.join('\n')).toMatch(/cannot be completed .*missing.*removed .*service-api:v1\.2\.0/s);
  });

  it('leaves the journal of a live promotion alone, and sets an unreadable one aside', async () => {
    const { root, store, old, built } = await layoutWithRelease();
    const dir = leaveJournal(root, old, built, process.pid);
    writeFileSync(join(dir, 'torn.promotion.json'), '{"schema": 1, "wri');
    const notices: string[] = [];
    expect(await digestsOf(reader(root, notices), 'v1.2.0')).toEqual({ api: null, web: null, worker: null });
    expect(await digestsOf(store, 'latest')).toEqual(old);
    expect(existsSync(join(dir, `${process.pid}-test.promotion.json`))).toBe(true);
    expect(existsSync(join(dir, 'torn.promotion.json.unreadable'))).toBe(true);
    expect(notices).toEqual([expect.stringMatching(/torn\.promotion\.json is not a promotion journal/)]);
  });

  it('removes a dead writer’s temporary blob and lock before the first read', async () => {
    const { root, store } = await layoutWithRelease();
    const dead = deadPid();
    const image = makeImage({ size: 64 });
    await pushImage(store, REPOS.api, image);
    const tmp = join(root, REPOS.api, 'blobs', 'sha256', `${'0'.repeat(64)}.${dead}.0123abcd.tmp`);
    writeFileSync(tmp, 'half a blob');
    const lock = join(root, REPOS.api, 'index.json.lock');
    writeFileSync(lock, JSON.stringify({ ...currentHolder(10_000, 'x'), pid: dead }));
    const notices: string[] = [];
    await reader(root, notices).listTags(REPOS.api);
    expect(existsSync(tmp)).toBe(false);
    expect(existsSync(lock)).toBe(false);
    expect(notices).toEqual([
      expect.stringMatching(/removed 2 temporary file\(s\) left by killed processes/),
    ]);
  });
});
