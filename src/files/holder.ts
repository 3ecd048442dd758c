import { hostname } from 'node:os';
import { processAlive, processStart } from '../processes/process-alive.ts';

/**
 * Who holds something on disk (a lock file, a promotion journal), written into it so that anyone
 * who finds it can tell whether its holder still lives: a dead pid on this host, or no heartbeat
 * past the deadline wherever it runs, means it was left by a crash (SIGKILL, power loss).
 */
export interface Holder {
  pid: number;
  host: string;
  /** When the holder took it (ISO time), for messages. */
  started: string;
  /** The holder's last sign of life, ms since the epoch. */
  heartbeat: number;
  /** Past `heartbeat` + this, the holder counts as gone wherever it runs. */
  staleAfterMs: number;
  /** Linux: the process's start time since boot (clock ticks), so a reused pid is not the holder. */
  procStart?: string;
  /** Unique per taking, so a holder only ever removes what it wrote itself. */
  token: string;
}

/** What the finder knows about the holder's process; `alive` is undefined on another host. */
export interface HolderObservation {
  now: number;
  host: string;
  alive?: boolean;
}

/**
 * Why the holder is gone, or false while it may still be working. Pure: the process check is the
 * caller's. On this host the pid decides at once (no wait on a crashed process); elsewhere only
 * the heartbeat can, so a live holder on another machine is never robbed while it beats.
 */
export function holderGone(holder: Holder, here: HolderObservation): string | false {
  if (holder.host === here.host && here.alive === false)
    return `pid ${holder.pid} on this host is no longer running`;
  const silent = here.now - holder.heartbeat;
  if (silent > holder.staleAfterMs)
    return `no heartbeat from pid ${holder.pid} on ${holder.host} for ${Math.round(silent / 1000)} s`;
  return false;
}

/** The holder record of this process, now. */
export function currentHolder(staleAfterMs: number, token: string): Holder {
  const procStart = processStart(process.pid);
  return {
    pid: process.pid,
    host: hostname(),
    started: new Date().toISOString(),
    heartbeat: Date.now(),
    staleAfterMs,
    ...(procStart ? { procStart } : {}),
    token,
  };
}

/** Read a holder from file text; undefined when it is not one (a foreign or torn file). */
export function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (
      typeof value.pid === 'number' &&
      typeof value.host === 'string' &&
      typeof value.heartbeat === 'number' &&
      typeof value.staleAfterMs === 'number' &&
      typeof value.token === 'string'
    )
      return value as Holder;
  } catch {}
  return undefined;
}

/** Why a holder found on disk is gone (this host's process table asked), or false. */
export function holderGoneNow(holder: Holder): string | false {
  const host = hostname();
  return holderGone(holder, {
    now: Date.now(),
    host,
    ...(holder.host === host ? { alive: processAlive(holder.pid, holder.procStart) } : {}),
  });
}
