import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listeningOf } from './published-ports.ts';

describe('listeningOf', () => {
  it("finds this process's own listening socket in the kernel's table, by its inode", async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const port = (server.address() as { port: number }).port;
      const inodes = new Set(
        readdirSync('/proc/self/fd')
          .map((fd) => {
            try {
              return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
            } catch {
              return undefined;
            }
          })
          .filter((i): i is string => i !== undefined),
      );
      const found = listeningOf(readFileSync('/proc/self/net/tcp', 'latin1'), inodes);
      expect(found).toContain(port);
      // Another process's sockets (no inode of ours) are not ours.
      expect(listeningOf(readFileSync('/proc/self/net/tcp', 'latin1'), new Set())).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('reads only listening entries (0A) and skips short or hostile lines', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0',
      '   1: 0100007F:1F91 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 222 1 0',
      '   2: garbage',
      '   3: 0100007F:FFFFF 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 333 1 0',
    ].join('\n');
    expect(listeningOf(table, new Set(['111', '222', '333']))).toEqual([8080]);
  });
});
