import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// A config is read from a repository (a pull request may change it): the record it names must not
// make `release stamp` write, with its three siblings, outside the project. And a version is judged
// on its value: a 60,000-character one is refused by its length, never as "contains whitespace".

const SIBLINGS = ['release.env', 'build-args.json', 'cli-version.json'];
let outside: string;
const repos: GitRepo[] = [];

function project(config: Record<string, unknown>): GitRepo {
  const repo = GitRepo.create('outside-paths-');
  repos.push(repo);
  repo.write('release.config.json', JSON.stringify({ registry: 'oci-layout:.release/oci', ...config }));
  repo.commit('initial');
  repo.annotatedTag('v1.0.0');
  return repo;
}

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'outside-paths-'));
});
afterAll(() => {
  for (const repo of repos) repo.remove();
  rmSync(outside, { recursive: true, force: true });
});

describe('release stamp writes inside the project only', () => {
  const cases: [string, () => string][] = [
    ['a relative record that climbs out', () => join('..', '..', '..', outside, 'climb', 'x.json')],
    ['an absolute record', () => join(outside, 'absolute', 'x.json')],
  ];
  for (const [name, recordOf] of cases)
    it(`refuses ${name} (exit 2, named), and writes nothing there`, async () => {
      const record = recordOf();
      const repo = project({ record });
      const run = await runRelease(['stamp', '--json'], { cwd: repo.dir });
      expect(run.code, run.stdout).toBe(2);
      const error = jsonOf<{ error: { code: string; message: string } }>(run).error;
      expect(error.code).toBe('RECORD_OUTSIDE_PROJECT');
      expect(error.message).toContain(record);
      const target = join(outside, basename(dirname(record)));
      expect(existsSync(target)).toBe(false);
      for (const sibling of SIBLINGS) expect(existsSync(join(repo.dir, 'dist', sibling))).toBe(false);
    });

  it('refuses a record under a linked folder that leads outside (exit 2), and writes nothing there', async () => {
    const repo = project({ record: 'link/rec.json' });
    const target = join(outside, 'linked');
    mkdirSync(target);
    symlinkSync(target, join(repo.dir, 'link'));
    const run = await runRelease(['stamp', '--json'], { cwd: repo.dir });
    expect(run.code, run.stdout).toBe(2);
    expect(jsonOf<{ error: { code: string } }>(run).error.code).toBe('RECORD_OUTSIDE_PROJECT');
    expect(readdirSync(target)).toEqual([]);
  });

  it('still writes --env-out where the command line says, and the record inside', async () => {
    const repo = project({});
    const envOut = join(outside, 'given', 'release.env');
    const run = await runRelease(['stamp', '--env-out', envOut], { cwd: repo.dir });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(envOut)).toBe(true);
    expect(existsSync(join(repo.dir, 'dist', 'release.json'))).toBe(true);
  });
});

describe('a version is judged on its value', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const body = JSON.stringify({ version: `v1.0.0-${'a'.repeat(60_000)}`, min_cli_version: '1.0.0' });
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('verify says the length of a 60,000-character version', async () => {
    const repo = project({});
    const run = await runRelease(['verify', '--url', url, '--no-cli', '--json'], { cwd: repo.dir });
    expect(run.code, run.stdout).toBe(1);
    const findings = jsonOf<{ findings: { code: string; message: string }[] }>(run).findings;
    const invalid = findings.find((f) => f.code === 'VERSION_INVALID');
    expect(invalid?.message).toContain('60007 characters long (a version has at most 1024)');
    expect(run.stdout).not.toContain('whitespace');
    expect(run.stdout.length).toBeLessThan(10_000); // the value is cut for display, not printed whole
  });

  it('stamp refuses a 60,000-character SERVICE_VERSION by its length', async () => {
    const repo = project({});
    const run = await runRelease(['stamp', '--json'], {
      cwd: repo.dir,
      env: { SERVICE_VERSION: 'v'.padEnd(60_000, '1') },
    });
    expect(run.code, run.stdout).toBe(2);
    const error = jsonOf<{ error: { code: string; message: string } }>(run).error;
    expect(error.code).toBe('VERSION_TOO_LONG');
    expect(error.message).toContain('60000 characters long');
    expect(existsSync(join(repo.dir, 'dist'))).toBe(false);
  });
});
