import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalRegistry } from '../../src/registry/local-registry.ts';
import { startNpmRegistry } from '../helpers/npm-registry.ts';
import { startRegistry } from '../helpers/registry.ts';

// The real docker-registry and Verdaccio, each handed a port someone else holds on its first
// attempt: the pick-then-listen gap a busy machine hits now and then, made certain. Only the port
// choice is steered; the clash, the child's exit and the retry are real.
const picks = vi.hoisted(() => ({ next: [] as number[] }));
vi.mock('../../src/processes/free-port.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/processes/free-port.ts')>();
  return { ...actual, freePort: async () => picks.next.shift() ?? actual.freePort() };
});

let holder: Server;
let held: number;
beforeAll(async () => {
  // It answers no one, and drops whoever connects (the starters poll the port they picked).
  holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  held = (holder.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
});

describe('a registry whose first port was taken', () => {
  it('docker-registry starts on another and keeps the htpasswd its caller wrote', async () => {
    picks.next = [held];
    const registry = await startRegistry({ htpasswd: { user: 'u', password: 'p' } });
    try {
      expect(registry.host).not.toBe(`127.0.0.1:${held}`);
      expect(picks.next).toEqual([]); // the held port was tried
      const anonymous = await fetch(`http://${registry.host}/v2/`);
      expect(anonymous.status).toBe(401);
      const signedIn = await fetch(`http://${registry.host}/v2/`, {
        headers: { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` },
      });
      expect(signedIn.status).toBe(200);
    } finally {
      await registry.stop();
    }
  }, 60_000);

  it('Verdaccio starts on another and issues its token', async () => {
    picks.next = [held];
    const npm = await startNpmRegistry();
    try {
      expect(new URL(npm.url).port).not.toBe(String(held));
      expect(picks.next).toEqual([]);
      expect(npm.token.length).toBeGreaterThan(10);
      const whoami = await fetch(new URL('-/whoami', npm.url), {
        headers: { authorization: `Bearer ${npm.token}` },
      });
      expect(await whoami.json()).toEqual({ username: npm.user.name });
    } finally {
      await npm.stop();
    }
  }, 60_000);

  it('gives up with the clash after three taken ports, and leaves no directory behind', async () => {
    picks.next = [held, held, held];
    const dir = join(mkdtempSync(join(tmpdir(), 'sr-clash-')), 'registry');
    const error = await startLocalRegistry({ dir }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/address already in use/);
    expect(picks.next).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }, 60_000);
});
