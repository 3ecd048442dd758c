import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a command's output goes: `process.stdout`/`stderr`, or a test's collector. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * What a `release` run takes from its process: working directory, environment, stdout and
 * stderr. `main(argv, io)` runs a command with its own (a test's temp directory and collected
 * output, or an embedder's), so several runs can share one process without touching its global
 * state; without one, everything is the process's own.
 */
export interface CliIo {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: OutputStream;
  stderr: OutputStream;
}

const current = new AsyncLocalStorage<CliIo>();

/** The io of the run this code is part of (the process's own outside any `withIo`). */
export function currentIo(): CliIo {
  return (
    current.getStore() ?? {
      cwd: process.cwd(),
      env: process.env,
      stdout: process.stdout,
      stderr: process.stderr,
    }
  );
}

/**
 * Run `fn` with `io` as the current io, for everything it awaits too. Nothing to replace (the bin
 * runs with the process's own) and nothing replaced outside: `fn` runs as it is, since a store
 * makes Node track every promise from then on, a cost each start-up would pay for nothing.
 */
export function withIo<T>(io: Partial<CliIo>, fn: () => Promise<T>): Promise<T> {
  if (Object.keys(io).length === 0 && current.getStore() === undefined) return fn();
  return current.run({ ...currentIo(), ...io }, fn);
}
