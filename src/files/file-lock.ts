import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { ExternalError } from '../errors.ts';
import { currentHolder, type Holder, holderGoneNow, parseHolder } from './holder.ts';
import { sibling } from './own-temporaries.ts';

export interface LockOptions {
  /** What waiting callers are told the lock protects, for messages. */
  what: string;
  /** Give up (LAYOUT_LOCKED) after waiting this long on a live holder. */
  waitMs?: number;
  /** A holder silent this long is gone wherever it runs; it beats every third of it. */
  staleAfterMs?: number;
  /** Told when a lock left by a gone holder is taken over. */
  notice?: (text: string) => void;
  /** The error code when a live holder outlasts the wait (default LAYOUT_LOCKED). */
  code?: string;
  /** The hint then (default: wait for the other release process writing `what`). */
  hint?: string;
}

/** Release a lock taken with `acquireLock`. */
export type Unlock = () => Promise<void>;

/**
 * A lock file that records its holder (pid, host, start, heartbeat). It is created complete, by
 * hard-linking a written temporary file to the lock's name (link fails if the name exists), so a
 * crash never leaves an empty lock. A lock whose holder is gone (a dead pid on this host, or no
 * heartbeat past its deadline) is taken over at once with a notice, never waited out. Taking
 * over happens under a second, short-lived file so that two waiters cannot both remove a lock and
 * one of them remove the other's fresh one.
 */
export async function acquireLock(path: string, options: LockOptions): Promise<Unlock> {
  const staleAfterMs = options.staleAfterMs ?? 10_000;
  const deadline = Date.now() + (options.waitMs ?? 15_000);
  const token = randomBytes(8).toString('hex');
  let holder = currentHolder(staleAfterMs, token);
  const tmp = sibling(path, 'tmp');
  await writeFile(tmp, JSON.stringify(holder));
  const waitNoticeAt = Date.now() + 1_000;
  let toldWaiting = false;
  try {
    for (;;) {
      try {
        await link(tmp, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const found = await readFile(path, 'utf8').catch(() => undefined);
      if (found === undefined) continue; // released between our link and our read
      const gone = await whyGone(path, found, staleAfterMs);
      if (gone) {
        if (await takeOver(path, found)) options.notice?.(`took over ${path}: its holder is gone (${gone})`);
        continue;
      }
      const other = parseHolder(found);
      if (!toldWaiting && Date.now() > waitNoticeAt) {
        toldWaiting = true;
        options.notice?.(
          `waiting for ${path}, held by ${other ? `pid ${other.pid} on ${other.host}` : 'another process'}`,
        );
      }
      if (Date.now() > deadline) {
        throw new ExternalError(
          options.code ?? 'LAYOUT_LOCKED',
          `${path} is held by ${other ? `pid ${other.pid} on ${other.host} since ${other.started}` : 'another process'}, which is still running`,
          {
            hint:
              options.hint ??
              `another release process is writing ${options.what}; wait for it to finish and run again`,
          },
        );
      }
      await sleep(20);
    }
  } finally {
    await rm(tmp, { force: true });
  }
  // Beat while held: a holder on another host is known alive only by its heartbeat.
  if (toldWaiting) {
    holder = { ...holder, heartbeat: Date.now() };
    await rewriteIfOurs(path, holder);
  }
  const beat = setInterval(() => {
    holder = { ...holder, heartbeat: Date.now() };
    void rewriteIfOurs(path, holder);
  }, staleAfterMs / 3);
  beat.unref();
  return async () => {
    clearInterval(beat);
    const now = await readFile(path, 'utf8').catch(() => undefined);
    if (now !== undefined && parseHolder(now)?.token === token) await rm(path, { force: true });
  };
}

/**
 * Remove the lock at `path` if its holder is gone (a recovery sweep: no one need wait for it);
 * returns why, or false when it is held (or absent).
 */
export async function removeAbandonedLock(path: string, staleAfterMs = 10_000): Promise<string | false> {
  const found = await readFile(path, 'utf8').catch(() => undefined);
  if (found === undefined) return false;
  const gone = await whyGone(path, found, staleAfterMs);
  return gone && (await takeOver(path, found)) ? gone : false;
}

/** Why the lock's holder is gone, or false. A file that is not a holder record ages out by mtime. */
async function whyGone(path: string, text: string, staleAfterMs: number): Promise<string | false> {
  const holder = parseHolder(text);
  if (holder) return holderGoneNow(holder);
  const age = await stat(path).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );
  return age > staleAfterMs ? `an unreadable lock ${Math.round(age / 1000)} s old` : false;
}

/** Remove the lock if it still holds exactly `seen`, under `<lock>.takeover`; true if removed. */
async function takeOver(path: string, seen: string): Promise<boolean> {
  const guard = `${path}.takeover`;
  try {
    await writeFile(guard, String(process.pid), { flag: 'wx' });
  } catch {
    // Someone else is taking it over (a few ms); a guard left by a crash ages out.
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > 2_000) await rm(guard, { force: true });
    else await sleep(5);
    return false;
  }
  try {
    const now = await readFile(path, 'utf8').catch(() => undefined);
    if (now !== seen) return false;
    await rm(path, { force: true });
    return true;
  } finally {
    await rm(guard, { force: true });
  }
}

async function rewriteIfOurs(path: string, holder: Holder): Promise<void> {
  try {
    if (parseHolder(await readFile(path, 'utf8'))?.token !== holder.token) return;
    const tmp = sibling(path, 'tmp');
    await writeFile(tmp, JSON.stringify(holder));
    await rename(tmp, path).catch(() => rm(tmp, { force: true }));
  } catch {}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
