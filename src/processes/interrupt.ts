import type { StopSignal } from '../errors.ts';

/**
 * SIGINT and SIGTERM for the `release` process. The bin hands each signal here; a run that has
 * declared it stops cleanly (`stopCleanly`: a promotion finishes or undoes its group of writes
 * first) takes the first one, and everything else stops at once as before. Process-wide on
 * purpose: signals are; runs in process (tests, embedders) never receive one.
 */
let clean = 0;
let received: StopSignal | undefined;
const listeners = new Set<(signal: StopSignal) => void>();

/**
 * Called by the entry point for each signal. True: a run takes it and will stop cleanly (it
 * returns, and the entry point exits with 130 or 143). False: nothing can stop cleanly now (no
 * such run, or this is a second signal): the entry point exits at once.
 */
export function deliverSignal(signal: StopSignal): boolean {
  if (clean === 0 || received) return false;
  received = signal;
  for (const listener of listeners) listener(signal);
  return true;
}

/** The signal this process was asked to stop by, if any. */
export function stopRequested(): StopSignal | undefined {
  return received;
}

/** Call `listener` when a stop is requested (at once if it already was); returns the unsubscribe. */
export function onStop(listener: (signal: StopSignal) => void): () => void {
  if (received) {
    listener(received);
    return () => {};
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Run `work` as a run that stops cleanly on the first SIGINT or SIGTERM. */
export async function stopCleanly<T>(work: () => Promise<T>): Promise<T> {
  clean++;
  try {
    return await work();
  } finally {
    clean--;
  }
}
