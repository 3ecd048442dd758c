import { type ChildProcess, spawn } from 'node:child_process';

export interface StartProcessOptions {
  /** Arguments after the bin. */
  args?: string[];
  /** Variables for the child; only PATH and HOME are inherited, `undefined` removes one. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * Matched against stdout until it appears; the group named `url`, else the first capture group,
   * else the whole match is the `url`. Default: the first `http://...` on stdout.
   */
  readyPattern?: RegExp;
  /** How long to wait for the ready line (default 20 s). */
  timeoutMs?: number;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartedProcess {
  /** The URL captured from the ready line. */
  url: string;
  /** The full match of `readyPattern`. */
  ready: RegExpExecArray;
  proc: ChildProcess;
  /** Everything the child printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the child has exited. */
  exited: Promise<Exit>;
  /** Wait until stderr or stdout matches (for log lines after start-up, e.g. "shutting down"). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM (or `signal`), then SIGKILL after `timeoutMs` (default 5 s). Safe to call twice. */
  stop(options?: { signal?: NodeJS.Signals; timeoutMs?: number }): Promise<Exit>;
}

/**
 * Start a bin (a `.js`/`.mjs` file runs with this node; anything else is executed directly) as a
 * subprocess, the way an operator or a container does, and wait for its "listening" line.
 * Rejects with the child's output if it exits or stays silent first. Call `stop()` in cleanup.
 */
export function startProcess(bin: string, options: StartProcessOptions = {}): Promise<StartedProcess> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
  };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const viaNode = /\.(c|m)?js$/.test(bin);
  const proc = spawn(viaNode ? process.execPath : bin, [...(viaNode ? [bin] : []), ...(options.args ?? [])], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    changed();
  });
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    changed();
  });
  const exited = new Promise<Exit>((resolve) => {
    proc.on('exit', (code, signal) => {
      changed();
      resolve({ code, signal });
    });
  });
  let isExited = false;
  void exited.then(() => {
    isExited = true;
    changed();
  });

  const waitFor = (pattern: RegExp, timeoutMs = 10_000, text = () => `${out}\n${err}`) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(text());
        if (match) return done(() => resolve(match));
        if (isExited) return done(() => reject(failure(`exited before printing ${pattern}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(failure(`no ${pattern} within ${timeoutMs} ms`))),
        timeoutMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  const failure = (what: string) =>
    new Error(`${bin} ${what}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);

  const stop = async ({ signal = 'SIGTERM' as NodeJS.Signals, timeoutMs = 5_000 } = {}) => {
    if (!isExited) proc.kill(signal);
    const kill = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    const exit = await exited;
    clearTimeout(kill);
    return exit;
  };

  return waitFor(options.readyPattern ?? /(https?:\/\/\S+)/, options.timeoutMs ?? 20_000, () => out).then(
    (ready) => ({
      url: ready.groups?.['url'] ?? ready[1] ?? ready[0],
      ready,
      proc,
      stdout: () => out,
      stderr: () => err,
      exited,
      waitFor: async (pattern, timeoutMs) => {
        await waitFor(pattern, timeoutMs);
      },
      stop,
    }),
    async (error: unknown) => {
      await stop({ signal: 'SIGKILL' });
      throw error;
    },
  );
}
