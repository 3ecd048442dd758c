import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A killed process that nobody reaps: `sh` starts `sleep 30` in the background, prints its pid,
 * then becomes `sleep 60` (exec), a parent that never waits. Killing the `sleep 30` leaves it a
 * zombie until the parent ends, as a command killed under a container PID 1 that reaps late is.
 * Linux only (it reads /proc to make sure).
 */
export async function makeZombie(): Promise<{ pid: number; end(): void }> {
  const parent: ChildProcess = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 60'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
    parent.once('error', reject);
  });
  process.kill(pid, 'SIGKILL');
  for (let i = 0; stateOf(pid) !== 'Z'; i++) {
    if (i === 100) throw new Error(`pid ${pid} did not become a zombie (state ${stateOf(pid)})`);
    await sleep(20);
  }
  return { pid, end: () => parent.kill('SIGKILL') };
}

function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}
