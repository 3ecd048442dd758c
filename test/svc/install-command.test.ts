import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../../src/processes/start-process.ts';
import { archiveOf, baseEnv, npmInstall, ROOT, run, Scratch, startApi, svcIn } from './support.ts';

// The project's `artifacts.cli.installCommand` reaches the gate of the reference svc: release
// build hands it to the CLI's build command as SERVICE_CLI_INSTALL_COMMAND, and the reference
// build (src/service/build/reference-build.js) bakes it in. Here that command is run as release
// build runs it, for an old svc, which the real API then blocks.

const scratch = new Scratch();
let api: StartedProcess;

beforeAll(async () => {
  api = await startApi({
    SERVICE_VERSION: 'v1.0.0',
    SERVICE_CLI_ARCHIVE: await archiveOf('v1.0.0', scratch.dir),
  });
}, 120_000);
afterAll(async () => {
  await api?.stop();
  scratch.cleanup();
});

describe('cli.installCommand', () => {
  it('is the upgrade command a blocked svc prints, {url} replaced by the archive URL', async () => {
    const archive = scratch.path('old.tar.gz');
    const built = await run(
      process.execPath,
      [join(ROOT, 'src/service/build/reference-build.js'), 'cli', archive],
      {
        env: {
          ...baseEnv(),
          SERVICE_VERSION: 'v0.1.0',
          SERVICE_CLI_INSTALL_COMMAND: 'pipx install --force {url}',
        },
        cwd: scratch.dir,
        timeoutMs: 120_000,
      },
    );
    expect(built.code, built.stderr).toBe(0);
    const prefix = scratch.path('prefix');
    expect((await npmInstall(prefix, archive)).code).toBe(0);
    const blocked = await run(svcIn(prefix), ['status', '--url', api.url], {
      env: baseEnv({ home: scratch.path('home') }),
    });
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toContain(`pipx install --force ${api.url}/api/cli/download/service-cli.tar.gz`);
    expect(blocked.stderr).not.toContain('npm install -g');
  }, 180_000);
});
