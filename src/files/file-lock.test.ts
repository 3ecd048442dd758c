import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLock } from './file-lock.ts';
import { currentHolder } from './holder.ts';
import { sweepDeadTemporaries } from './sweep-temporaries.ts';

const dir = mkdtempSync(join(tmpdir(), 'sr-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const deadPid = () =>
  Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout.toString());

describe('acquireLock', () => {
  it('records its holder and removes only its own lock', async () => {
    const path = join(dir, 'a.lock');
    const unlock = await acquireLock(path, { what: 'a' });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      pid: process.pid,
      token: expect.any(String),
    });
    await unlock();
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose pid is dead at once, with a notice', async () => {
    const path = join(dir, 'b.lock');
    writeFileSync(path, JSON.stringify({ ...currentHolder(10_000, 'x'), pid: deadPid() }));
    const notices: string[] = [];
    const unlock = await acquireLock(path, { what: 'b', notice: (t) => notices.push(t), waitMs: 5_000 });
    expect(notices).toEqual([
      expect.stringMatching(
        /took over .*b\.lock: its holder is gone \(pid \d+ on this host is no longer running\)/,
      ),
    ]);
    await unlock();
  });

  it('takes over a silent holder (no heartbeat past its deadline), refuses a live one', async () => {
    const silent = join(dir, 'c.lock');
    writeFileSync(silent, JSON.stringify({ ...currentHolder(50, 'x'), heartbeat: Date.now() - 1_000 }));
    await (await acquireLock(silent, { what: 'c' }))();
    const held = join(dir, 'd.lock');
    const unlock = await acquireLock(held, { what: 'd' });
    await expect(acquireLock(held, { what: 'the layout', waitMs: 100 })).rejects.toMatchObject({
      code: 'LAYOUT_LOCKED',
      message: expect.stringMatching(/held by pid \d+ on .*, which is still running/),
    });
    await unlock();
  });

  it('the sweep removes dead writers’ temporaries and abandoned locks, never a live one’s', async () => {
    const dead = deadPid();
    writeFileSync(join(dir, `index.json.${dead}.0123abcd.tmp`), 'x');
    writeFileSync(join(dir, `blob.${dead}.0123abcd.bak`), 'x');
    writeFileSync(join(dir, `index.json.${process.pid}.0123abcd.tmp`), 'x');
    writeFileSync(join(dir, 'e.lock'), JSON.stringify({ ...currentHolder(10_000, 'x'), pid: dead }));
    const live = await acquireLock(join(dir, 'f.lock'), { what: 'f' });
    const removed = await sweepDeadTemporaries([dir]);
    expect(removed.map((p) => p.slice(dir.length + 1)).sort()).toEqual(
      ['e.lock', `blob.${dead}.0123abcd.bak`, `index.json.${dead}.0123abcd.tmp`].sort(),
    );
    expect(existsSync(join(dir, `index.json.${process.pid}.0123abcd.tmp`))).toBe(true);
    await live();
  });
});
