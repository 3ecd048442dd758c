import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { API_BIN, API_READY, jsonBody, request } from './support.ts';

// Idle connections (connected, silent) must not starve the endpoint. The bound is generous on
// purpose: this machine is shared; latency targets live in the benchmark.

const IDLE = 500;
let api: StartedProcess;
const sockets: Socket[] = [];

beforeAll(async () => {
  api = await startProcess(API_BIN, {
    env: { PORT: '0', SERVICE_VERSION: 'v1.2.3' },
    readyPattern: API_READY,
  });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await api?.stop();
});

it(`answers /api/version quickly while ${IDLE} idle sockets are held open`, async () => {
  const { hostname, port } = new URL(api.url);
  await Promise.all(
    Array.from(
      { length: IDLE },
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => resolve());
          socket.on('error', reject);
          sockets.push(socket);
        }),
    ),
  );
  const started = performance.now();
  const reply = await request(api.url, '/api/version');
  const elapsed = performance.now() - started;
  expect(reply.status).toBe(200);
  expect(jsonBody(reply)).toMatchObject({ version: 'v1.2.3' });
  expect(elapsed).toBeLessThan(5_000); // starved, it would wait for the 10 s headers timeout
  // They were still open while it answered: the server did not make room by dropping them.
  expect(sockets.filter((socket) => socket.destroyed || socket.readyState !== 'open')).toHaveLength(0);
});
