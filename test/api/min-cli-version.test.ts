import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_CLI_VERSION } from '../../src/index.ts';
import { parseCore } from '../../src/version/parse.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { API_BIN, API_READY, jsonBody, request } from './support.ts';

const SOURCE = new URL('../../src/service/api/min-cli-version.ts', import.meta.url);

describe('MIN_CLI_VERSION', () => {
  it('is strict X.Y.Z: no v, no prerelease, no build metadata', () => {
    expect(parseCore(MIN_CLI_VERSION)).toBeDefined();
    expect(MIN_CLI_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('is a literal constant in one line of its own file, with a comment on when to raise it', () => {
    const lines = readFileSync(SOURCE, 'utf8').trim().split('\n');
    const code = lines.filter((line) => !line.trim().startsWith('//'));
    expect(code).toEqual([`export const MIN_CLI_VERSION = '${MIN_CLI_VERSION}';`]);
    expect(lines.join(' ')).toMatch(/raise/i);
  });
});

describe('the running API ignores every attempt to configure the minimum', () => {
  let dir: string;
  let api: StartedProcess;
  const attempt = '99.0.0';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sr-api-min-'));
    // A config file in the working directory in every shape someone might guess.
    writeFileSync(
      join(dir, 'release.config.json'),
      JSON.stringify({ minCliVersion: attempt, min_cli_version: attempt, api: { minCliVersion: attempt } }),
    );
    api = await startProcess(API_BIN, {
      cwd: dir,
      env: {
        PORT: '0',
        SERVICE_VERSION: 'v1.2.3',
        MIN_CLI_VERSION: attempt,
        SERVICE_MIN_CLI_VERSION: attempt,
        MIN_CLI: attempt,
        API_MIN_CLI_VERSION: attempt,
        npm_package_config_min_cli_version: attempt,
      },
      readyPattern: API_READY,
    });
  });

  afterAll(async () => {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the constant from its source', async () => {
    const document = jsonBody(await request(api.url, '/api/version')) as Record<string, unknown>;
    expect(document['min_cli_version']).toBe(MIN_CLI_VERSION);
    expect(document['min_cli_version']).not.toBe(attempt);
  });
});
