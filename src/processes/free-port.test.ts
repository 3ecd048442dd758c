import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { explicitPortRange, freePort, isPortClash, retryOnPortClash } from './free-port.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      servers.push(server);
      resolve(server);
    });
  });
}

function rangeFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sr-ports-'));
  writeFileSync(join(dir, 'range'), text);
  return join(dir, 'range');
}

describe('freePort', () => {
  it('picks a port under the ephemeral range, where connections never take their source port', async () => {
    const [, high] = explicitPortRange() ?? [0, 65535];
    const picked = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of picked) expect(port).toBeLessThanOrEqual(high);
    // and it is free: we can listen on it
    await expect(listenOn(picked[0] as number)).resolves.toBeDefined();
  });

  it('reads the range from procfs, and has none when the range leaves no room below', () => {
    const file = rangeFile('40000\t60999\n');
    try {
      expect(explicitPortRange(file)).toEqual([19_999, 39_999]);
      writeFileSync(file, '1024 65535');
      expect(explicitPortRange(file)).toBeUndefined(); // freePort then takes the kernel's choice
    } finally {
      rmSync(join(file, '..'), { recursive: true, force: true });
    }
    expect(explicitPortRange('/nonexistent/range')).toEqual([12_767, 32_767]);
  });
});

describe('retryOnPortClash', () => {
  it('starts again on a new port when the first one was taken in between', async () => {
    const taken = await freePort();
    await listenOn(taken); // someone else got there first
    const tried: number[] = [];
    const server = await retryOnPortClash(async () => {
      const port = tried.length === 0 ? taken : await freePort();
      tried.push(port);
      return listenOn(port);
    });
    expect(tried).toHaveLength(2);
    expect(tried[1]).not.toBe(taken);
    expect(server.listening).toBe(true);
  });

  it('recognises a clash reported in a child process output', () => {
    expect(isPortClash(new Error('listen tcp 127.0.0.1:5000: bind: address already in use'))).toBe(true);
    expect(isPortClash(new Error('Verdaccio exited (2): ... "code":"EADDRINUSE" ...'))).toBe(true);
    expect(isPortClash(new Error('permission denied'))).toBe(false);
    expect(isPortClash('EADDRINUSE')).toBe(false); // not an error
  });

  it('rethrows any other failure at once, and a clash after the last attempt', async () => {
    let calls = 0;
    await expect(
      retryOnPortClash(async () => {
        calls++;
        throw new Error('no such binary');
      }),
    ).rejects.toThrow('no such binary');
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      retryOnPortClash(async () => {
        calls++;
        throw Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
      }, 3),
    ).rejects.toThrow('EADDRINUSE');
    expect(calls).toBe(3);
  });
});
