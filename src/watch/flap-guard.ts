import type { ProbeResult } from '../verify/types.ts';

/**
 * Consecutive failures before a target counts as unreachable. One lost probe (a restart, a
 * dropped packet) must not flip the gauges and page the operator; two in a row is an outage.
 */
export const FAILURES_BEFORE_UNREACHABLE = 2;

interface Memory {
  failures: number;
  lastGood: ProbeResult | undefined;
}

/**
 * Remembers, per deployment and reading, the last good probe result and how many probes have
 * failed since. A single failure after a good reading is answered with that reading (marked as
 * held); the second failure in a row, or a failure with no good reading to hold, stands. A held
 * reading is never fresher evidence than it was: it only keeps the last verdict one round longer.
 */
export class FlapGuard {
  private readonly memory = new Map<string, Memory>();

  /** The results to judge this round, with at most one failure per reading held back. */
  hold(deployment: string, results: ProbeResult[]): ProbeResult[] {
    const seen = new Set<string>();
    const held = results.map((result) => {
      // One reading of an artifact (an HTTP probe) is keyed by the artifact alone: a failure may
      // name another URL than the success did (the web probe's fallback page). Several readings
      // (worker containers) are told apart by where they were read.
      const several = results.filter((r) => r.name === result.name).length > 1;
      const key = `${deployment}\u0000${result.name}\u0000${several ? result.source : ''}`;
      seen.add(key);
      const memory = this.memory.get(key) ?? { failures: 0, lastGood: undefined };
      this.memory.set(key, memory);
      if (result.error === undefined) {
        memory.failures = 0;
        memory.lastGood = result;
        return result;
      }
      memory.failures += 1;
      if (memory.failures < FAILURES_BEFORE_UNREACHABLE && memory.lastGood) {
        return { ...memory.lastGood, detail: `held: the last probe failed once (${result.error})` };
      }
      return result;
    });
    // Readings that disappeared (a worker container removed) are forgotten, so memory stays bounded.
    for (const key of this.memory.keys()) {
      if (key.startsWith(`${deployment}\u0000`) && !seen.has(key)) this.memory.delete(key);
    }
    return held;
  }

  /** Forget deployments no longer watched. */
  keepOnly(deployments: Set<string>): void {
    for (const key of this.memory.keys()) {
      if (!deployments.has(key.slice(0, key.indexOf('\u0000')))) this.memory.delete(key);
    }
  }
}
