/** Spread of each wait around the interval, so many watchers do not probe a fleet in lockstep. */
export const JITTER = 0.1;

export interface LoopOptions {
  intervalMs: number;
  /** Aborted when a stop is asked for: the round under way finishes, no other starts. */
  stop: AbortSignal;
  jitter?: number;
  random?: () => number;
}

/**
 * Run `round` every interval (start to start, with jitter) until `stop`. Rounds never overlap:
 * one that overruns the interval is followed at once by the next.
 */
export async function loopRounds(round: () => Promise<void>, options: LoopOptions): Promise<void> {
  while (!options.stop.aborted) {
    const started = performance.now();
    await round();
    if (options.stop.aborted) return;
    const wait = nextStart(options.intervalMs, options.jitter ?? JITTER, options.random ?? Math.random);
    await sleep(Math.max(0, wait - (performance.now() - started)), options.stop);
  }
}

/** The interval, moved by up to ±jitter of itself. */
export function nextStart(intervalMs: number, jitter: number, random: () => number): number {
  return intervalMs * (1 + jitter * (2 * random() - 1));
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
  });
}

/** `15s`, `500ms`, `2m`, or a bare number of seconds; undefined when it is none of these. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) return undefined;
  const n = Number(match[1]);
  const ms = match[2] === 'ms' ? n : match[2] === 'm' ? n * 60_000 : n * 1000;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}
