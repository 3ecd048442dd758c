import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../helpers/start-process.ts';
import { archiveOf, baseEnv, npmInstall, run, Scratch, startApi, svcIn } from './support.ts';

// `svc update` killed at any moment: a real svc v1.0.0 installed with real npm updates itself from
// the real reference API serving v1.1.0, and is SIGKILLed (its whole process group, npm included)
// at evenly spaced moments across an undisturbed update. After every kill, and after the next svc
// command (which finishes or undoes the update), a complete svc must answer.

const OLD = 'v1.0.0';
const NEW = 'v1.1.0';
const KILLS = 40;

const scratch = new Scratch();
const template = scratch.path('template');
let api: StartedProcess;
let round = 0;

/** The prefix's bin first on PATH, as for a user who installed svc there. */
function env(prefix: string): Record<string, string> {
  return { ...baseEnv({ home: scratch.path('home'), binDirs: [join(prefix, 'bin')] }), CI: 'true' };
}

/** A fresh copy of the installed old svc (npm's links are relative, so a copy works as installed). */
function freshPrefix(): string {
  const prefix = scratch.path(`prefix-${round++}`);
  cpSync(template, prefix, { recursive: true, verbatimSymlinks: true });
  return prefix;
}

function startUpdate(prefix: string): ChildProcess {
  return spawn(svcIn(prefix), ['update', '--url', api.url], {
    env: env(prefix),
    detached: true,
    stdio: 'ignore',
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

async function versionOf(prefix: string): Promise<string> {
  const result = await run(svcIn(prefix), ['--version'], { env: env(prefix) });
  return `${result.code} ${result.stdout.trim()}${result.stderr ? ` [${result.stderr.trim()}]` : ''}`;
}

const updateDir = (prefix: string) => join(prefix, 'lib', 'node_modules', '.service-cli-update');

beforeAll(async () => {
  const [oldArchive, newArchive] = await Promise.all([
    archiveOf(OLD, scratch.dir),
    archiveOf(NEW, scratch.dir),
  ]);
  expect((await npmInstall(template, oldArchive)).code).toBe(0);
  api = await startApi({ SERVICE_VERSION: NEW, SERVICE_CLI_ARCHIVE: newArchive });
}, 180_000);

afterAll(async () => {
  await api?.stop();
  scratch.cleanup();
});

describe('svc update killed at any moment', () => {
  it(`leaves a working svc after SIGKILL at ${KILLS} moments, and the next svc command completes it`, async () => {
    // The undisturbed update, measured (the median of three): the kills are spread across it.
    const durations: number[] = [];
    for (let i = 0; i < 3; i++) {
      const undisturbed = freshPrefix();
      const started = performance.now();
      expect(await exited(startUpdate(undisturbed))).toBe(0);
      durations.push(performance.now() - started);
      expect(await versionOf(undisturbed)).toBe(`0 svc ${NEW}`);
      expect(existsSync(updateDir(undisturbed))).toBe(false);
    }
    const duration = durations.sort((a, b) => a - b)[1]!;

    const seen = { old: 0, new: 0, recovered: 0 };
    // Evenly across the undisturbed run. A shared machine can be slower now than when it was
    // measured, and kills that all fell before the switch would prove only half: then up to ten
    // more, later and later (to half again the run), until both sides were found.
    const moments = Array.from({ length: KILLS }, (_, i) => (duration * (i + 0.5)) / KILLS);
    for (let extra = 1; extra <= 10; extra++) moments.push(duration * (1 + extra * 0.05));
    for (let i = 0; i < moments.length; i++) {
      if (i >= KILLS && seen.old > 0 && seen.new > 0 && seen.recovered > 0) break;
      const prefix = freshPrefix();
      const child = startUpdate(prefix);
      await sleep(moments[i]!);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already done: the last moments may fall after the update finished.
      }
      await exited(child);
      // Right after the kill: the old or the new svc, whole.
      const right = await versionOf(prefix);
      expect([`0 svc ${OLD}`, `0 svc ${NEW}`], `kill ${i} at ${Math.round(moments[i]!)} ms`).toContain(
        right.replace(/ \[.*\]$/s, ''),
      );
      if (right.includes('interrupted svc update')) seen.recovered++;
      // The next command (gated, so it also reaches the API) runs, and leaves no update behind.
      const status = await run(svcIn(prefix), ['status', '--url', api.url], { env: env(prefix) });
      expect(status.code, status.stderr).toBe(0);
      expect(existsSync(updateDir(prefix)), `kill ${i}`).toBe(false);
      const after = await versionOf(prefix);
      expect([`0 svc ${OLD}`, `0 svc ${NEW}`]).toContain(after);
      if (after.endsWith(NEW)) seen.new++;
      else seen.old++;
      rmSync(prefix, { recursive: true, force: true });
    }
    console.log(
      `undisturbed update ${Math.round(duration)} ms; after ${seen.old + seen.new} kills: ${JSON.stringify(seen)}`,
    );
    // Spread across the run, the kills found both sides of the switch.
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.new).toBeGreaterThan(0);
    expect(seen.recovered).toBeGreaterThan(0);
  }, 600_000);
});

describe('two updates at once', () => {
  it('never interleave: both finish, one after the other, and one complete svc remains', async () => {
    const prefix = freshPrefix();
    const [a, b] = await Promise.all([
      run(svcIn(prefix), ['update', '--url', api.url], { env: env(prefix), timeoutMs: 120_000 }),
      run(svcIn(prefix), ['update', '--url', api.url], { env: env(prefix), timeoutMs: 120_000 }),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(await versionOf(prefix)).toBe(`0 svc ${NEW}`);
    expect(existsSync(updateDir(prefix))).toBe(false);
  }, 180_000);

  it('a second update refuses with exit 3 when the first holds the prefix past the wait', async () => {
    const prefix = freshPrefix();
    const holder = spawn('sleep', ['60']);
    try {
      // The lock as a running update holds it: the directory with its journal, owner alive.
      mkdirSync(updateDir(prefix));
      writeFileSync(
        join(updateDir(prefix), 'journal.json'),
        JSON.stringify({
          pid: holder.pid,
          host: hostname(),
          started: new Date().toISOString(),
          state: 'staging',
        }),
      );
      const result = await run(svcIn(prefix), ['update', '--url', api.url], {
        env: { ...env(prefix), SVC_UPDATE_WAIT_MS: '600' },
        timeoutMs: 60_000,
      });
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(
        new RegExp(`another svc update is installing into this prefix \\(pid ${holder.pid}`),
      );
      expect(await versionOf(prefix)).toBe(`0 svc ${OLD}`);
    } finally {
      holder.kill('SIGKILL');
      await exited(holder);
    }
    // Its owner gone, the next update undoes what it left and installs.
    const retry = await run(svcIn(prefix), ['update', '--url', api.url], {
      env: env(prefix),
      timeoutMs: 120_000,
    });
    expect(retry.code, retry.stderr).toBe(0);
    expect(await versionOf(prefix)).toBe(`0 svc ${NEW}`);
  }, 180_000);
});

describe('Ctrl-C and SIGTERM during an update', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s while npm stages the new svc: exit %i, the old svc untouched, nothing left',
    async (signal, code) => {
      const prefix = freshPrefix();
      const child = startUpdate(prefix);
      // npm is running once its staging prefix exists.
      const stage = join(updateDir(prefix), 'stage');
      for (let i = 0; i < 600 && !existsSync(stage); i++) await sleep(10);
      expect(existsSync(stage)).toBe(true);
      child.kill(signal);
      expect(await exited(child)).toBe(code);
      expect(existsSync(updateDir(prefix))).toBe(false);
      expect(await versionOf(prefix)).toBe(`0 svc ${OLD}`);
    },
    120_000,
  );
});
