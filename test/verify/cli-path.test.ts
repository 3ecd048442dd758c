import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_CLI_VERSION } from '../../src/service/api/min-cli-version.ts';
import { buildCliArchive } from '../../src/service/svc/build/build-cli-archive.ts';
import { compareVersionStrings } from '../../src/version/compare.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { Cleanup, startApi } from './support.ts';

// The operator's svc as really installed: archives built by the svc build, installed with
// `npm install -g --prefix <tmp>`, put on PATH in different orders, checked against a real API.
// verify checks a CLI only when the config declares one, by that CLI's own bin: here the config
// names the reference CLI's archive, and its package.json says `svc`.

interface Report {
  inStep: boolean;
  artifacts: { name: string; version: string | null; source: string; status: string; why: string }[];
  findings: { code: string; message: string; fix: string; artifact?: string; source?: string }[];
}

const cleanup = new Cleanup();
const CURRENT = 'v1.4.0';
const OLD = '0.9.0';
let apiUrl: string;
let cwd: string;
const bin = { current: '', old: '', acme: '' };
/** A project whose config declares no CLI; one whose CLI is `@acme/cli` with the bin `acme`. */
let noCli: string;
let acme: string;

function npmInstall(prefix: string, archive: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--offline', archive],
      { timeout: 120_000, env: { PATH: process.env['PATH'], HOME: cwd } },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`npm install ${archive}: ${stderr}`)) : resolve(),
    );
  });
}

beforeAll(async () => {
  // The old CLI must really be below the API's minimum for this suite to mean anything.
  expect(compareVersionStrings(OLD, MIN_CLI_VERSION)).toBeLessThan(0);
  cwd = cleanup.tempDir('cli');
  const dist = cleanup.tempDir('archives');
  for (const [key, version] of [
    ['current', CURRENT],
    ['old', OLD],
  ] as const) {
    const { path } = await buildCliArchive({ version, outFile: join(dist, `service-cli-${version}.tar.gz`) });
    const prefix = cleanup.tempDir(`prefix-${key}`);
    await npmInstall(prefix, path);
    bin[key] = join(prefix, 'bin');
  }
  // The declared CLI: the archive the config's build names (the bin is read from its package.json).
  copyFileSync(join(dist, `service-cli-${CURRENT}.tar.gz`), join(cwd, 'service-cli.tar.gz'));
  writeFileSync(
    join(cwd, 'release.config.json'),
    JSON.stringify({
      artifacts: {
        cli: { package: 'service-cli', build: { command: ['true'], archive: 'service-cli.tar.gz' } },
      },
    }),
  );
  noCli = cleanup.tempDir('no-cli');
  writeFileSync(
    join(noCli, 'release.config.json'),
    JSON.stringify({ artifacts: { api: { image: 'acme' } } }),
  );
  // Another service's CLI, a plain npm package whose bin is `acme`, packed and installed for real.
  acme = cleanup.tempDir('acme');
  const pkg = join(acme, 'pkg');
  mkdirSync(pkg);
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: '@acme/cli', version: '1.4.0', bin: { acme: 'cli.js' } }),
  );
  writeFileSync(join(pkg, 'cli.js'), '#!/usr/bin/env node\nconsole.log("1.4.0");\n');
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', acme], {
    cwd: pkg,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'], HOME: acme },
  }).trim();
  writeFileSync(
    join(acme, 'release.config.json'),
    JSON.stringify({
      artifacts: { cli: { package: '@acme/cli', build: { command: ['true'], archive: packed } } },
    }),
  );
  const prefix = cleanup.tempDir('prefix-acme');
  await npmInstall(prefix, join(acme, packed));
  bin.acme = join(prefix, 'bin');
  apiUrl = (await startApi(cleanup, CURRENT)).url;
}, 240_000);

afterAll(() => cleanup.run());

async function verifyWithPath(dirs: string[], where = cwd) {
  const result = await runRelease(['verify', '--url', apiUrl, '--json'], {
    cwd: where,
    env: { PATH: [...dirs, process.env['PATH'] ?? ''].join(':') },
  });
  return { result, report: jsonOf<Report>(result) };
}

describe('release verify and the svc on PATH', () => {
  it('is in step with the CLI installed at the same tag', async () => {
    const { result, report } = await verifyWithPath([bin.current]);
    expect(result.code, result.stdout).toBe(0);
    expect(report.artifacts.find((a) => a.name === 'cli')).toMatchObject({
      version: CURRENT,
      source: join(bin.current, 'svc'),
      status: 'ok',
    });
  });

  it('exits 1 when the CLI is below min_cli_version, with svc update as the fix', async () => {
    const { result, report } = await verifyWithPath([bin.old]);
    expect(result.code).toBe(1);
    expect(report.findings.map((f) => f.code)).toEqual(['CLI_BELOW_MINIMUM']);
    const [f] = report.findings;
    expect(f!.message).toContain(OLD);
    expect(f!.message).toContain(MIN_CLI_VERSION);
    expect(f!.fix).toContain(`svc update --url ${apiUrl}`);
  });

  it('exits 1 when an older svc is first on PATH, naming both and which to remove', async () => {
    const { result, report } = await verifyWithPath([bin.old, bin.current]);
    expect(result.code).toBe(1);
    expect(report.artifacts.filter((a) => a.name === 'cli').map((a) => a.source)).toEqual([
      join(bin.old, 'svc'),
      join(bin.current, 'svc'),
    ]);
    expect(report.findings.map((f) => f.code)).toEqual(['CLI_SHADOWED']);
    const [f] = report.findings;
    expect(f!.message).toContain(`${join(bin.old, 'svc')} (${OLD})`);
    expect(f!.message).toContain(`${join(bin.current, 'svc')} (${CURRENT})`);
    expect(f!.fix).toBe(`remove ${join(bin.old, 'svc')} (or put ${bin.current} before it in PATH)`);
  });

  it('is in step when the right svc comes first and an older copy later', async () => {
    const { result } = await verifyWithPath([bin.current, bin.old]);
    expect(result.code, result.stdout).toBe(0);
  });

  it('exits 1 when no svc is on PATH at all, and --no-cli leaves it out', async () => {
    const missing = await verifyWithPath([]);
    expect(missing.result.code).toBe(1);
    expect(missing.report.findings.map((f) => f.code)).toEqual(['CLI_NOT_FOUND']);
    const skipped = await runRelease(['verify', '--url', apiUrl, '--json', '--no-cli'], { cwd });
    expect(skipped.code).toBe(0);
  });

  it('checks no CLI when the config declares none, though an svc is on PATH', async () => {
    const { result, report } = await verifyWithPath([bin.current, bin.old], noCli);
    expect(result.code, result.stdout).toBe(0);
    expect(report.artifacts.map((a) => a.name)).not.toContain('cli');
  });

  it("reads another service's CLI by its package's own bin, and never an svc", async () => {
    const { result, report } = await verifyWithPath([bin.old, bin.acme], acme);
    expect(result.code, result.stdout).toBe(0);
    expect(report.artifacts.filter((a) => a.name === 'cli')).toEqual([
      expect.objectContaining({ version: '1.4.0', source: join(bin.acme, 'acme'), status: 'ok' }),
    ]);
    const missing = await verifyWithPath([bin.current], acme);
    expect(missing.report.findings.map((f) => [f.code, f.message])).toEqual([
      ['CLI_NOT_FOUND', 'no `acme` on PATH: the operator CLI is not installed'],
    ]);
    expect(missing.report.artifacts.find((a) => a.name === 'cli')?.why).toBe('no acme on PATH');
    // Its fix installs the archive the config's build names with the config's install command;
    // the config's API serves no CLI, so no download endpoint of it is made up.
    expect(missing.report.findings[0]!.fix).toBe(
      `npm install -g <acme-cli-1.4.0.tgz of ${CURRENT}> (or pass --no-cli to leave the CLI out)`,
    );
  });

  it("shows a broken CLI's own error and exit code, never a secret of its environment", async () => {
    // An installed acme that cannot start (the Node it needs is newer), printing a token it holds.
    const broken = cleanup.tempDir('broken-acme');
    writeFileSync(
      join(broken, 'acme'),
      '#!/bin/sh\necho "acme starting with token $ACME_TOKEN" >&2\n' +
        'echo "Error: acme 1.4.0 requires Node.js >= 22 (this is $(node --version), token $ACME_TOKEN)" >&2\n' +
        'echo "    at checkEngine (/usr/lib/acme/cli.js:3:9)" >&2\nexit 3\n',
      { mode: 0o755 },
    );
    const result = await runRelease(['verify', '--url', apiUrl, '--json'], {
      cwd: acme,
      env: { PATH: [broken, process.env['PATH'] ?? ''].join(':'), ACME_TOKEN: 'tok-5f4e3d2c1b0a' },
    });
    expect(result.code, result.stdout).toBe(1);
    const report = jsonOf<Report>(result);
    const row = report.artifacts.find((a) => a.name === 'cli')!;
    expect(row.source).toBe(join(broken, 'acme'));
    expect(row.why).toMatch(
      /^`acme --version` failed \(exit 3\): Error: acme 1\.4\.0 requires Node\.js >= 22/,
    );
    expect(report.findings.map((f) => f.code)).toEqual(['CLI_BROKEN']);
    expect(report.findings[0]!.message).toContain('requires Node.js >= 22');
    expect(row.why).toContain('token ***)');
    expect(report.findings[0]!.fix).toBe(
      `reinstall the CLI: npm install -g <acme-cli-1.4.0.tgz of ${CURRENT}>`,
    );
    expect(result.stdout + result.stderr).not.toContain('tok-5f4e3d2c1b0a');
    expect(result.stdout).not.toContain('svc');
  });
});
