import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { makeZombie } from '../../test/helpers/zombie.ts';
import { processAlive, processStart } from './process-alive.ts';

describe('processAlive', () => {
  it('this process lives; a finished child and a pid with another start time do not', () => {
    expect(processAlive(process.pid, processStart(process.pid))).toBe(true);
    const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    expect(processAlive(Number(child.stdout.trim()))).toBe(false);
    expect(processAlive(process.pid, '1')).toBe(false);
    expect(processAlive(0)).toBe(false);
    expect(processAlive(-1)).toBe(false);
  });

  it('a killed process not yet reaped (a zombie) does not, though kill(pid, 0) still answers', async () => {
    const zombie = await makeZombie();
    try {
      expect(() => process.kill(zombie.pid, 0)).not.toThrow();
      expect(processAlive(zombie.pid)).toBe(false);
    } finally {
      zombie.end();
    }
  });
});
