import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { API_BIN, API_READY, request } from './support.ts';

// Graceful shutdown of the real process. The request in flight is a download of an archive far
// larger than the loopback socket buffers, read by a client that stops reading half-way: the
// server cannot finish it until the client resumes, with nothing test-only in production code.

const ARCHIVE_BYTES = 48 * 1024 * 1024;
let dir: string;
let archive: Buffer;
let api: StartedProcess | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sr-api-shutdown-'));
  archive = randomBytes(ARCHIVE_BYTES);
  writeFileSync(join(dir, 'service-cli.tar.gz'), archive);
});
afterEach(async () => {
  await api?.stop({ signal: 'SIGKILL' });
  api = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(): Promise<StartedProcess> {
  return startProcess(API_BIN, {
    cwd: dir,
    env: { PORT: '0', SERVICE_VERSION: 'v1.2.3', SERVICE_CLI_ARCHIVE: join(dir, 'service-cli.tar.gz') },
    readyPattern: API_READY,
  });
}

/** Start the download and stop reading after the first chunk. */
function stalledDownload(url: string): Promise<{ res: IncomingMessage; chunks: Buffer[] }> {
  return new Promise((resolve, reject) => {
    get(`${url}/api/cli/download/service-cli.tar.gz`, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.once('data', (chunk: Buffer) => {
        chunks.push(chunk);
        res.pause();
        resolve({ res, chunks });
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** What a new connection attempt gets: 'connected' or the error code. */
function tryConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const settled = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

describe.each(['SIGTERM', 'SIGINT'] as const)('%s', (signal) => {
  it('stops accepting, finishes the request in flight, closes idle keep-alive sockets, exits 0', async () => {
    api = await start();
    const running = api;
    // An idle keep-alive connection: left open it would keep the process alive.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await request(running.url, '/api/version', { agent })).status).toBe(200);

    const { res, chunks } = await stalledDownload(running.url);
    running.proc.kill(signal);
    await running.waitFor(/stopped listening/);

    expect(await tryConnect(running.url)).toBe('ECONNREFUSED');
    // Still running: the download is not finished.
    expect(await settled(running.exited, 500)).toBe(false);

    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => res.on('end', resolve));
    res.resume();
    await ended;
    const body = Buffer.concat(chunks);
    expect(body.length).toBe(ARCHIVE_BYTES);
    expect(createHash('sha256').update(body).digest('hex')).toBe(res.headers['x-checksum-sha256']);

    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.stderr()).toMatch(/service-api: stopped\n/);
    agent.destroy();
  });
});
