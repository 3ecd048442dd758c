import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleArtifact } from '../../src/service/build/bundle.ts';
import type { StartedProcess } from '../helpers/start-process.ts';
import {
  archiveOf,
  baseEnv,
  npmInstall,
  run,
  Scratch,
  SVC_DEV_BIN,
  sha256Of,
  startApi,
  svcIn,
} from './support.ts';

// svc doctor and the PATH check after an update, with the real API and real npm prefixes: one
// with an old svc (v0.1.0), one with the current one (v1.0.0).
const scratch = new Scratch();
let api: StartedProcess;
let unknownApi: StartedProcess;
let newArchive: string;
const oldPrefix = scratch.path('old');
const newPrefix = scratch.path('new');

beforeAll(async () => {
  newArchive = await archiveOf('v1.0.0', scratch.dir);
  const oldArchive = await archiveOf('v0.1.0', scratch.dir);
  // The API bundled outside any checkout and started without SERVICE_VERSION reports "unknown",
  // as a production image without the variable does.
  const bundled = scratch.path('api', 'service-api.js');
  await bundleArtifact('api', bundled);
  [api, unknownApi] = await Promise.all([
    startApi({ SERVICE_VERSION: 'v1.0.0', SERVICE_CLI_ARCHIVE: newArchive }),
    startApi({ SERVICE_VERSION: undefined }, bundled),
  ]);
  for (const [prefix, archive] of [
    [oldPrefix, oldArchive],
    [newPrefix, newArchive],
  ] as const) {
    const installed = await npmInstall(prefix, archive);
    expect(installed.code, installed.stderr).toBe(0);
  }
});

afterAll(async () => {
  await Promise.all([api?.stop(), unknownApi?.stop()]);
  scratch.cleanup();
});

const doctor = async (bin: string, url: string, binDirs: string[]) => {
  const result = await run(bin, ['doctor', '--json', '--url', url], {
    env: baseEnv({ home: scratch.path('home'), binDirs }),
  });
  return {
    ...result,
    report: JSON.parse(result.stdout) as {
      ok: boolean;
      findings: { id: string; problem: string; fix: string; details?: string[] }[];
    },
  };
};

describe('svc doctor', () => {
  it('finds nothing when one current svc is on PATH and the API reports its version', async () => {
    const result = await run(svcIn(newPrefix), ['doctor', '--url', api.url], {
      env: baseEnv({ home: scratch.path('home'), binDirs: [join(newPrefix, 'bin')] }),
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('no problems found: svc v1.0.0, API v1.0.0');
  });

  it('is not gated: an old svc gets the "below the minimum" finding with its fix, and exit 1', async () => {
    const { code, report } = await doctor(svcIn(oldPrefix), api.url, [join(oldPrefix, 'bin')]);
    expect(code).toBe(1);
    const finding = report.findings.find((f) => f.id === 'cli-below-minimum');
    expect(finding?.problem).toContain('svc v0.1.0 is below');
    expect(finding?.fix).toContain(`svc update --url ${api.url}`);
  });

  it('lists every svc on PATH with its version and says an older one comes first', async () => {
    const { code, report } = await doctor(svcIn(newPrefix), api.url, [
      join(oldPrefix, 'bin'),
      join(newPrefix, 'bin'),
    ]);
    expect(code).toBe(1);
    const finding = report.findings.find((f) => f.id === 'several-svc-on-path');
    expect(finding?.problem).toMatch(/2 svc executables are on PATH, and an older one comes first/);
    expect(finding?.details?.[0]).toContain(`${svcIn(oldPrefix)}  svc v0.1.0`);
    expect(finding?.details?.[1]).toContain(`${svcIn(newPrefix)}  svc v1.0.0  (the one running now)`);
    // Newer first: still two, but not "older first".
    const swapped = await doctor(svcIn(newPrefix), api.url, [join(newPrefix, 'bin'), join(oldPrefix, 'bin')]);
    expect(swapped.report.findings.find((f) => f.id === 'several-svc-on-path')?.problem).not.toMatch(/older/);
  });

  it('reports an API whose version is unknown, with the fix', async () => {
    const { code, report } = await doctor(svcIn(newPrefix), unknownApi.url, [join(newPrefix, 'bin')]);
    expect(code).toBe(1);
    expect(report.findings.map((f) => f.id)).toEqual(['api-version-unknown']);
    expect(report.findings[0]!.fix).toMatch(/SERVICE_VERSION/);
  });

  it('reports a development build (the checkout) and an API that cannot be read', async () => {
    const result = await run(
      process.execPath,
      [SVC_DEV_BIN, 'doctor', '--json', '--url', 'http://127.0.0.1:1'],
      {
        env: baseEnv({ home: scratch.path('home') }),
      },
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { findings: { id: string; problem: string; fix: string }[] };
    expect(report.findings.map((f) => f.id)).toEqual(['cli-version-unknown', 'api-unreadable']);
    // From a checkout svc update refuses (not npm-installed): the fix is the command that works.
    expect(report.findings[0]!.fix).toBe(
      'install a release: npm install -g http://127.0.0.1:1/api/cli/download/service-cli.tar.gz',
    );
    expect(report.findings[1]!.problem).toMatch(/connection refused/);
  });
});

describe('svc update when another svc comes first on PATH', () => {
  it('installs into its own prefix, then names the svc in the way with its version', async () => {
    const shadow = scratch.path('shadow');
    const running = scratch.path('running');
    const oldArchive = await archiveOf('v0.1.0', scratch.path('again'));
    for (const prefix of [shadow, running]) expect((await npmInstall(prefix, oldArchive)).code).toBe(0);
    const before = sha256Of(join(shadow, 'lib/node_modules/service-cli/svc.js'));
    const env = baseEnv({ home: scratch.path('home'), binDirs: [join(shadow, 'bin'), join(running, 'bin')] });

    const result = await run(svcIn(running), ['update', '--url', api.url], { env, timeoutMs: 120_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`installed svc v1.0.0 into ${running}`);
    expect(result.stderr).toContain(`1. ${svcIn(shadow)}  svc v0.1.0`);
    expect(result.stderr).toContain(`2. ${svcIn(running)}  svc v1.0.0`);
    expect(result.stderr).toMatch(
      new RegExp(`hint: remove ${svcIn(shadow).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(svc v0\\.1\\.0\\)`),
    );
    // The update went where the running svc came from, and nowhere else.
    expect((await run(svcIn(running), ['--version'], { env })).stdout).toBe('svc v1.0.0\n');
    expect(sha256Of(join(shadow, 'lib/node_modules/service-cli/svc.js'))).toBe(before);
  });
});
