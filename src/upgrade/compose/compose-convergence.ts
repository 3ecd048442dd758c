import type { ComposeContainer } from './compose-types.ts';

/** What one service must reach: `digest` on `replicas` containers (one-shot: exited 0). */
export interface ComposeExpectation {
  service: string;
  /** undefined: whatever it runs (a one-shot of an image the upgrade does not move). */
  digest: string | undefined;
  replicas: number;
  oneShot: boolean;
}

export type ComposeVerdict =
  | { status: 'converged' }
  | { status: 'waiting'; reason: string }
  | { status: 'failed'; service: string; reason: string };

/**
 * Has every service reached what it should, or has one failed? Pure: containers as read, and
 * since when each was first seen running on this machine's clock (`runningSince`).
 *
 * A container of the target digest that exited, restarts (a restart policy bringing a crash back)
 * or is unhealthy has failed: that image will not start serving by waiting. While rolling back
 * (`tolerate`), only the deadline ends the wait: the old image may need a restart or two (the
 * port just freed) to come back.
 */
export function judgeComposeConvergence(input: {
  expected: ComposeExpectation[];
  containers: ComposeContainer[];
  runningSince: ReadonlyMap<string, number>;
  stableMs: number;
  now: number;
  tolerate?: boolean;
}): ComposeVerdict {
  const waiting: string[] = [];
  for (const want of input.expected) {
    const all = input.containers.filter((c) => c.service === want.service && !c.oneOff);
    const mine = all.filter((c) => want.digest === undefined || c.digest === want.digest);
    if (want.oneShot) {
      const done = mine.find((c) => c.state === 'exited' || c.state === 'dead');
      if (done && done.exitCode === 0) continue;
      if (done && !input.tolerate) {
        return {
          status: 'failed',
          service: want.service,
          reason: `one-shot ${want.service} (${done.name}) exited with code ${done.exitCode}`,
        };
      }
      waiting.push(`${want.service}: ${mine.length ? 'still running' : 'not started'}`);
      continue;
    }
    if (!input.tolerate) {
      const crashed = mine.find(
        (c) => c.state === 'exited' || c.state === 'dead' || c.state === 'restarting' || c.restartCount > 0,
      );
      if (crashed) {
        return {
          status: 'failed',
          service: want.service,
          reason: `${want.service}: container ${crashed.name} ${crashed.state === 'restarting' || crashed.restartCount > 0 ? `keeps restarting (${crashed.restartCount} restart(s), last exit code ${crashed.exitCode})` : `exited with code ${crashed.exitCode}`}`,
        };
      }
      const sick = mine.find((c) => c.health === 'unhealthy');
      if (sick) {
        return {
          status: 'failed',
          service: want.service,
          reason: `${want.service}: container ${sick.name} is unhealthy${sick.healthLog ? ` (last check: ${sick.healthLog})` : ''}`,
        };
      }
    }
    const others = all.filter((c) => !mine.includes(c) && c.state === 'running');
    const running = mine.filter((c) => c.state === 'running');
    const ready = running.filter(
      (c) =>
        (c.health === undefined || c.health === 'healthy') &&
        input.now - (input.runningSince.get(c.id) ?? input.now) >= input.stableMs,
    );
    if (others.length > 0)
      waiting.push(`${want.service}: ${others.length} container(s) still on another image`);
    else if (ready.length < want.replicas) {
      const starting = running.filter((c) => c.health === 'starting').length;
      waiting.push(
        `${want.service}: ${ready.length} of ${want.replicas} ready${starting ? `, ${starting} health starting` : ''}${running.length > ready.length ? '' : `, ${mine.length} on the digest`}`,
      );
    }
  }
  return waiting.length === 0 ? { status: 'converged' } : { status: 'waiting', reason: waiting.join('; ') };
}
