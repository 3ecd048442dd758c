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
}

export interface SignalMoment {
  signal: 'SIGINT' | 'SIGKILL' | 'SIGTERM';
  /** Milliseconds after the start, or after the journal appeared when `afterJournal` is set. */
  atMs: number;
  /** The journal directory to watch: the moment counts from the first journal written there. */
  afterJournal?: string;
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
  const fire = () => {
    if (ended || sent) return;
    sent = child.kill(moment!.signal);
  };
  let timer: NodeJS.Timeout | undefined;
  let journalAtMs: number | undefined;
  let watcher: ReturnType<typeof watch> | undefined;
  if (moment && !moment.afterJournal) timer = setTimeout(fire, moment.atMs);
  if (moment?.afterJournal) {
    const dir = moment.afterJournal;
    const armed = () => {
      if (timer) return;
      if (!existsSync(dir) || !readdirSync(dir).some((n) => n.endsWith('.promotion.json'))) return;
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
