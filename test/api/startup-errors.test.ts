import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { API_BIN, API_READY, STACK_LIKE } from './support.ts';

// A misconfigured start fails at once with a message and a hint on stderr, exit 2, nothing on
// stdout (the one "listening" line is a promise that the server is up).

function runApi(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [API_BIN],
      { env: { PATH: process.env['PATH'] ?? '', SERVICE_VERSION: 'v1.0.0', ...env }, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

let dir: string;
let holder: StartedProcess;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sr-api-bad-'));
  writeFileSync(join(dir, 'file.txt'), 'not a directory');
  holder = await startProcess(API_BIN, {
    env: { PORT: '0', SERVICE_VERSION: 'v1.0.0' },
    readyPattern: API_READY,
  });
});
afterAll(async () => {
  await holder?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('start-up errors', () => {
  it.each([
    [{ PORT: 'eighty' }, /PORT="eighty" is not a port number/],
    [{ PORT: '70000' }, /PORT="70000" is not a port number/],
    [
      { PORT: '0', SERVICE_WEB_ROOT: '/nonexistent/web' },
      /web root \/nonexistent\/web is not a readable directory/,
    ],
  ])('%j: exit 2 with a message and a hint', async (env, message) => {
    const result = await runApi(env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/service-api: hint: /);
    expect(result.stderr).not.toMatch(STACK_LIKE);
  });

  it('a web root that is a file: exit 2', async () => {
    const result = await runApi({ PORT: '0', SERVICE_WEB_ROOT: join(dir, 'file.txt') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a readable directory');
  });

  it('an archive path that cannot be read (a directory): exit 2', async () => {
    const result = await runApi({ PORT: '0', SERVICE_CLI_ARCHIVE: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot read the CLI archive ${dir}: EISDIR`);
    expect(result.stderr).toContain('SERVICE_CLI_ARCHIVE');
  });

  it('a port already in use: exit 2, naming the port', async () => {
    const { port } = new URL(holder.url);
    const result = await runApi({ PORT: port });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    expect(result.stderr).toContain('another process uses that port');
  });
});
