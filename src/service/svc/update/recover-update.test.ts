import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeZombie } from '../../../../test/helpers/zombie.ts';
import { recoverUpdate } from './recover-update.ts';
import { type Journal, newJournal, type UpdatePaths, updatePaths } from './update-dir.ts';

// Every state a kill can leave an update in, laid out on a real file system as the update's own
// steps leave it (staged-switch.ts), then recovered. After recovery `bin/svc` must resolve to a
// complete package of the expected version, and nothing of the update may be left.

let root: string;
let paths: UpdatePaths;

/** A package directory as npm lays it out: package.json with the version, and the bin script. */
function writePackage(dir: string, version: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'service-cli', version, bin: { svc: 'svc.js' } }),
  );
  writeFileSync(join(dir, 'svc.js'), `console.log("svc v${version}")\n`, { mode: 0o755 });
}

function pointBin(target: string): void {
  rmSync(paths.binLink, { force: true });
  symlinkSync(target, paths.binLink);
}

/** The version `bin/svc` resolves to, through the link as node would. */
function binVersion(): string {
  const packageDir = dirname(realpathSync(paths.binLink));
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

function journal(state: Journal['state'], pid = 2 ** 22 + 17): Journal {
  return { ...newJournal(), pid, state, version: 'v2.0.0', bin: 'svc.js' };
}

function writeJournalFile(j: Journal): void {
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.journal, JSON.stringify(j));
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-recover-'));
  const nodeModules = join(root, 'prefix', 'lib', 'node_modules');
  paths = updatePaths(nodeModules);
  mkdirSync(join(root, 'prefix', 'bin'), { recursive: true });
  writePackage(paths.live, '1.0.0');
  pointBin('../lib/node_modules/service-cli/svc.js');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('recoverUpdate', () => {
  it('undoes a staging update: the staged files go, the live svc stays', async () => {
    writeJournalFile(journal('staging'));
    writePackage(paths.staged, '2.0.0');
    expect((await recoverUpdate(paths)).outcome).toBe('undone');
    expect(binVersion()).toBe('1.0.0');
    expect(existsSync(paths.dir)).toBe(false);
  });

  it('removes a directory left without a journal (a removal that was cut short)', async () => {
    writePackage(paths.staged, '2.0.0');
    expect((await recoverUpdate(paths)).outcome).toBe('undone');
    expect(binVersion()).toBe('1.0.0');
    expect(existsSync(paths.dir)).toBe(false);
  });

  const switching: [string, () => void][] = [
    ['nothing switched yet', () => undefined],
    ['bin points at the staged package', () => pointBin(join(paths.staged, 'svc.js'))],
    [
      'the live package moved aside',
      () => {
        pointBin(join(paths.staged, 'svc.js'));
        renameSync(paths.live, paths.previous);
      },
    ],
    [
      'a half-made copy of the staged package',
      () => {
        pointBin(join(paths.staged, 'svc.js'));
        renameSync(paths.live, paths.previous);
        mkdirSync(join(paths.dir, 'next-1-abcd'), { recursive: true });
        writeFileSync(join(paths.dir, 'next-1-abcd', 'package.json'), '{"na');
      },
    ],
    [
      'the new live package in place, bin still at the staged one',
      () => {
        pointBin(join(paths.staged, 'svc.js'));
        renameSync(paths.live, paths.previous);
        writePackage(paths.live, '2.0.0');
      },
    ],
  ];
  it.each(switching)('finishes a switching update: %s', async (_name, arrange) => {
    writeJournalFile(journal('switching'));
    writePackage(paths.staged, '2.0.0');
    arrange();
    const recovery = await recoverUpdate(paths);
    expect(recovery).toEqual({ outcome: 'finished', version: 'v2.0.0' });
    expect(binVersion()).toBe('2.0.0');
    expect(readlinkSync(paths.binLink)).toBe('../lib/node_modules/service-cli/svc.js');
    expect(existsSync(paths.dir)).toBe(false);
  });

  it('cleans up after a done update', async () => {
    writeJournalFile(journal('done'));
    renameSync(paths.live, paths.previous);
    writePackage(paths.live, '2.0.0');
    expect((await recoverUpdate(paths)).outcome).toBe('cleaned');
    expect(binVersion()).toBe('2.0.0');
    expect(existsSync(paths.dir)).toBe(false);
  });

  it('leaves the update of a live process alone', async () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      writeJournalFile(journal('staging', sleeper.pid!));
      writePackage(paths.staged, '2.0.0');
      expect((await recoverUpdate(paths)).outcome).toBe('running');
      expect(existsSync(paths.staged)).toBe(true);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('a second recovery while one holds the recovery lock stands back', async () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      writeJournalFile(journal('switching'));
      writePackage(paths.staged, '2.0.0');
      writeFileSync(join(paths.dir, 'recovering'), String(sleeper.pid));
      expect((await recoverUpdate(paths)).outcome).toBe('busy');
      expect(binVersion()).toBe('1.0.0');
    } finally {
      // kill(2) only sends the signal: wait until the holder has really died (a loaded machine
      // takes a moment), as the next svc would only run after it.
      const exited = once(sleeper, 'exit');
      sleeper.kill('SIGKILL');
      await exited;
    }
    // Its holder gone, the next recovery takes the lock over and finishes.
    expect((await recoverUpdate(paths)).outcome).toBe('finished');
    expect(binVersion()).toBe('2.0.0');
  });

  // Under a container PID 1 that reaps late, a killed svc stays a zombie for seconds, and
  // kill(pid, 0) still answers for it: neither its lock nor its update may block the next svc.
  it('a recovery lock held by a killed, unreaped svc (a zombie) is taken over at once', async () => {
    const zombie = await makeZombie();
    try {
      writeJournalFile(journal('switching'));
      writePackage(paths.staged, '2.0.0');
      writeFileSync(join(paths.dir, 'recovering'), String(zombie.pid));
      expect((await recoverUpdate(paths)).outcome).toBe('finished');
      expect(binVersion()).toBe('2.0.0');
    } finally {
      zombie.end();
    }
  });

  it('an update whose svc was killed and not yet reaped (a zombie) is recovered, not left running', async () => {
    const zombie = await makeZombie();
    try {
      writeJournalFile(journal('staging', zombie.pid));
      writePackage(paths.staged, '2.0.0');
      expect((await recoverUpdate(paths)).outcome).toBe('undone');
      expect(binVersion()).toBe('1.0.0');
      expect(existsSync(paths.dir)).toBe(false);
    } finally {
      zombie.end();
    }
  });
});
