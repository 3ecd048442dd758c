import { spawn } from 'node:child_process';
import { existsSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { RELEASE_BIN } from '../helpers/run-release.ts';

// Helpers of the interruption suites: a `release` process signalled at a chosen moment, and
// what a store directory holds that no finished run may leave behind.

export interface SignalledRun {
  /** The exit code (130/143 from the bin's own exit), or null when the signal killed it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Whether the signal was sent before the process ended (else it finished first). */
  sent: boolean;
  ms: number;
  /** When the journal appeared (with `afterJournal`), ms after the start. */
  journalAtMs?: number;
  /** When it was seen gone again (the group of writes over), ms after the start. */
  journalGoneAtMs?: number;
  /**
   * With `journal`: whether the promotion's journal was on disk at the moment the signal was sent,
   * read just before `kill`. The journal is written before the first tag write and removed once
   * the group of writes is over (tags, signatures, the settle of latest), so this says the signal
   * landed within the writes, not before them or after.
   */
  inWrites?: boolean;
}

export interface SignalMoment {
  signal: 'SIGINT' | 'SIGKILL' | 'SIGTERM';
  /** Milliseconds after the start, or after the journal appeared when `afterJournal` is set. */
  atMs: number;
  /** The journal directory to watch: the moment counts from the first journal written there. */
  afterJournal?: string;
  /** The journal directory to look in when the signal is sent (`inWrites`); `afterJournal` by default. */
  journal?: string;
}

/** Whether a promotion journal is in `dir` now. */
export function journalOpen(dir: string): boolean {
  try {
    return readdirSync(dir).some((n) => n.endsWith('.promotion.json'));
  } catch {
    return false; // not made yet
  }
}

/** Run `release <args>` as a process (the bin, as CI runs it) and send `moment.signal` on time. */
export function runSignalled(
  args: string[],
  cwd: string,
  moment?: SignalMoment,
  extraEnv: Record<string, string> = {},
): Promise<SignalledRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--', RELEASE_BIN, ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', CI: 'true', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let sent = false;
  let ended = false;
  let inWrites: boolean | undefined;
  const journalDir = moment?.journal ?? moment?.afterJournal;
  const fire = () => {
    if (ended || sent) return;
    if (journalDir) inWrites = journalOpen(journalDir);
    sent = child.kill(moment!.signal);
  };
  let timer: NodeJS.Timeout | undefined;
  let journalAtMs: number | undefined;
  let journalGoneAtMs: number | undefined;
  let watcher: ReturnType<typeof watch> | undefined;
  if (moment && !moment.afterJournal) timer = setTimeout(fire, moment.atMs);
  if (moment?.afterJournal) {
    const dir = moment.afterJournal;
    const armed = () => {
      if (timer) {
        if (journalGoneAtMs === undefined && !journalOpen(dir))
          journalGoneAtMs = Math.round(performance.now() - started);
        return;
      }
      if (!journalOpen(dir)) return;
      journalAtMs = Math.round(performance.now() - started);
      timer = setTimeout(fire, moment.atMs);
    };
    // The journal directory may not exist yet: poll until it does, then watch it.
    const poll = setInterval(() => {
      if (!existsSync(dir)) return;
      clearInterval(poll);
      watcher = watch(dir, armed);
      armed();
    }, 1);
    child.on('exit', () => clearInterval(poll));
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      ended = true;
      clearTimeout(timer);
      watcher?.close();
      const ms = Math.round(performance.now() - started);
      resolve({
        code,
        signal,
        stdout,
        stderr,
        sent,
        ms,
        ...(journalAtMs === undefined ? {} : { journalAtMs }),
        ...(journalGoneAtMs === undefined ? {} : { journalGoneAtMs }),
        ...(inWrites === undefined ? {} : { inWrites: sent && inWrites }),
      });
    });
  });
}

/** Files a finished or recovered run must not leave in a layout: temporaries, locks, journals. */
export function leftovers(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(tmp|bak|lock|takeover|promotion\.json|unreadable)$/.test(entry.name)) found.push(path);
    }
  };
  if (existsSync(root)) walk(root);
  return found;
}
