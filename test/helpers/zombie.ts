import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A killed process that nobody reaps: `sh` starts `sleep 30` in the background, then becomes
 * `sleep 60` (exec), a parent that never waits. Once the exec is done, killing the `sleep 30`
 * leaves it a zombie until the parent ends, as a command killed under a container PID 1 that
 * reaps late is. (Killed before the exec, `sh` itself would reap it.) Linux only: it reads /proc.
 */
export async function makeZombie(): Promise<{ pid: number; end(): void }> {
  const parent: ChildProcess = spawn('sh', ['-c', 'sleep 30 & exec sleep 60'], { stdio: 'ignore' });
  const end = () => parent.kill('SIGKILL');
  try {
    const pid = await poll(`the exec'd parent (pid ${parent.pid})`, () => {
      if (read(`/proc/${parent.pid}/cmdline`) !== ['sleep', '60', ''].join('\0')) return undefined;
      const children = read(`/proc/${parent.pid}/task/${parent.pid}/children`).trim().split(' ');
      return children.length === 1 && children[0] ? Number(children[0]) : undefined;
    });
    process.kill(pid, 'SIGKILL');
    await poll(`pid ${pid} as a zombie`, () => (stateOf(pid) === 'Z' ? true : undefined));
    return { pid, end };
  } catch (error) {
    end();
    throw error;
  }
}

async function poll<T>(what: string, read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 250; i++) {
    const value = read();
    if (value !== undefined) return value;
    await sleep(20);
  }
  throw new Error(`no ${what} within 5 s`);
}

function stateOf(pid: number): string | undefined {
  const stat = read(`/proc/${pid}/stat`);
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] : undefined;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
