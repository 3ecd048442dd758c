import { readFileSync } from 'node:fs';

/**
 * Whether a process of this host runs: a zombie (killed, not yet reaped) does not, nor does a
 * newer process that reuses the pid (its start time differs). A zombie answers `kill(pid, 0)`, and
 * a container's PID 1 may reap one only seconds later (or never): a lock or journal left by a
 * killed command must not block the next one meanwhile. Off Linux, `kill(pid, 0)` alone decides.
 */
export function processAlive(pid: number, procStart?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const stat = readStat(pid);
  if (stat) {
    if (stat.state === 'Z' || stat.state === 'X') return false;
    return !procStart || procStart === stat.start;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function processStart(pid: number): string | undefined {
  return readStat(pid)?.start;
}

/** `/proc/<pid>/stat`: state and start time (fields 3 and 22; the name in field 2 may hold spaces). */
function readStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  return state && start ? { state, start } : undefined;
}
