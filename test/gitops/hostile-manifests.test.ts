import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOf, RELEASE_BIN, runRelease } from '../helpers/run-release.ts';

// Hostile deployment folders for `release bump` and `release verify --manifests`: paths that lead
// out of the project (through a link, `..`, an absolute path), files whose mode must survive, a key
// given twice after a bump, YAML that once took a minute to read, and bumps killed mid-run.
const FIXTURES = join(import.meta.dirname, '../../fixtures/gitops');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `sr-hostile-${prefix}-`));
  made.push(dir);
  return dir;
}

/** The plain fixture (Kubernetes manifests, Compose and its .env) in a project of its own. */
function plain(): string {
  const dir = temp('plain');
  cpSync(join(FIXTURES, 'plain'), dir, { recursive: true });
  rmSync(join(dir, 'expected'), { recursive: true, force: true });
  return dir;
}

function setManifests(dir: string, manifests: unknown[]): void {
  const config = JSON.parse(readFileSync(join(dir, 'release.config.json'), 'utf8'));
  writeFileSync(join(dir, 'release.config.json'), JSON.stringify({ ...config, deploy: { manifests } }));
}

/** Every file under `dir` (links not followed) and its text. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

describe('paths from the config or a flag stay inside the project (exit 2, nothing written)', () => {
  const outsideDeploy = () => {
    const outside = temp('outside');
    cpSync(join(FIXTURES, 'plain/deploy'), join(outside, 'dir'), { recursive: true });
    return outside;
  };

  it('deploy.manifests through a linked folder, --manifests at a linked folder, `..` and an absolute path', async () => {
    const cases: [string, (dir: string, outside: string) => string[], string][] = [
      [
        'a file under a linked folder in the config',
        (dir, outside) => {
          symlinkSync(join(outside, 'dir'), join(dir, 'link'));
          setManifests(dir, ['link/web.yaml']);
          return [];
        },
        'deploy.manifests[0]: "link/web.yaml" is outside the project',
      ],
      [
        'a linked folder in --manifests',
        (dir, outside) => {
          mkdirSync(join(dir, 'apps'));
          symlinkSync(join(outside, 'dir'), join(dir, 'apps/dir'));
          return ['--manifests', 'apps/dir'];
        },
        '--manifests: "apps/dir" is outside the project',
      ],
      [
        'a folder above the project',
        (dir, outside) => {
          setManifests(dir, [join(relative(dir, outside), 'dir')]);
          return [];
        },
        'is outside the project',
      ],
      [
        'an absolute path elsewhere, with declared keys',
        (dir, outside) => {
          setManifests(dir, [{ path: join(outside, 'dir/app.yaml'), keys: { 'metadata.name': 'version' } }]);
          return [];
        },
        'deploy.manifests[0].path',
      ],
    ];
    for (const [name, arrange, message] of cases) {
      const dir = plain();
      const outside = outsideDeploy();
      const flags = arrange(dir, outside);
      const before = snapshot(outside);
      for (const command of [
        ['bump', '--version', 'v1.4.0'],
        ['verify', '--manifests', '--expect', 'v1.4.0'],
      ]) {
        const args =
          command[0] === 'verify' && flags.length
            ? ['verify', ...flags, '--expect', 'v1.4.0']
            : [...command, ...flags];
        const run = await runRelease([...args, '--json'], { cwd: dir });
        expect(run.code, `${name}: ${args.join(' ')}`).toBe(2);
        const error = jsonOf<{ error: { code: string; message: string } }>(run).error;
        expect(error.code, name).toBe('MANIFESTS_OUTSIDE_PROJECT');
        expect(error.message, name).toContain(message);
      }
      expect(snapshot(outside), name).toEqual(before);
    }
  });

  it('a linked folder inside the project that leads inside it is followed, and the file written', async () => {
    const dir = plain();
    symlinkSync('deploy', join(dir, 'current'));
    setManifests(dir, ['current/app.yaml', 'current/compose.yaml', 'current/web.yaml']);
    const run = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'deploy/web.yaml'), 'utf8')).toContain('v1.4.0');
    expect(readFileSync(join(dir, 'deploy/.env'), 'utf8')).toContain('v1.4.0');
  });
});

describe('a rewrite keeps the file as it was but for the release', () => {
  it('a 0600 .env stays 0600, a 0755 manifest keeps its x bit, and no temporary is left', async () => {
    const dir = plain();
    chmodSync(join(dir, 'deploy/.env'), 0o600);
    chmodSync(join(dir, 'deploy/app.yaml'), 0o755);
    const run = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'deploy/.env'), 'utf8')).toContain(
      'WEB_IMAGE=ghcr.io/acme/service-web:v1.4.0',
    );
    expect(statSync(join(dir, 'deploy/.env')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'deploy/app.yaml')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'deploy/web.yaml')).mode & 0o777).toBe(0o644);
    expect(readdirSync(join(dir, 'deploy')).sort()).toEqual(['.env', 'app.yaml', 'compose.yaml', 'web.yaml']);
  });
});

describe('a key given twice in a file holding the release', () => {
  const cases: [string, string, (text: string) => string, string][] = [
    [
      "a second image: in a Deployment's container",
      'deploy/app.yaml',
      (text) =>
        text.replace(
          '          image: ghcr.io/acme/service-api:v1.4.0\n          env:',
          '          image: ghcr.io/acme/service-api:v1.4.0\n          image: docker.io/attacker/web:latest\n          env:',
        ),
      'image',
    ],
    [
      'a second WEB_IMAGE= in the .env',
      'deploy/.env',
      (text) => `${text}WEB_IMAGE=docker.io/attacker/web:latest\n`,
      'WEB_IMAGE',
    ],
  ];
  for (const [name, file, add, key] of cases)
    it(`${name}: drift to verify, named by file and line; bump refuses (exit 1) and writes nothing`, async () => {
      const dir = plain();
      expect((await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir })).code).toBe(0);
      const text = add(readFileSync(join(dir, file), 'utf8'));
      writeFileSync(join(dir, file), text);
      const line = text.split('\n').findIndex((l) => l.includes('attacker')) + 1;
      const verify = await runRelease(['verify', '--manifests', '--expect', 'v1.4.0', '--json'], {
        cwd: dir,
      });
      expect(verify.code).toBe(1);
      const findings = jsonOf<{ findings: { code: string; source: string; message: string }[] }>(
        verify,
      ).findings;
      expect(findings.map((f) => [f.code, f.source])).toEqual([
        ['MANIFEST_DUPLICATE_KEY', `${file}:${line}`],
      ]);
      expect(findings[0]!.message).toContain(`gives ${key} a second time`);
      const before = snapshot(dir);
      const bump = await runRelease(['bump', '--version', 'v1.5.0', '--json'], { cwd: dir });
      expect(bump.code).toBe(1);
      const error = jsonOf<{ error: { code: string; message: string } }>(bump).error;
      expect(error.code).toBe('BUMP_DUPLICATE_KEY');
      expect(error.message).toContain(`${file}:${line}: ${key}`);
      expect(snapshot(dir)).toEqual(before);
    });
});

describe('YAML that once took a minute is read in bounded time', () => {
  const KB = 1024;
  const shapes: Record<string, string> = {
    '"x" "x" … on one 200 KB line': Array.from({ length: (200 * KB) / 4 }, () => '"x"').join(' '),
    '50,000 anchors, each aliasing the one before': Array.from(
      { length: 50_000 },
      (_, i) => `a${i}: &a${i} [${i ? `*a${i - 1}` : 1}]`,
    ).join('\n'),
    '--- × 500,000': '---\n'.repeat(500_000),
  };
  it('verify --manifests reads a folder with each beside the manifests and is in step (generous deadline)', async () => {
    const dir = plain();
    expect((await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir })).code).toBe(0);
    for (const [i, text] of Object.values(shapes).entries())
      writeFileSync(join(dir, `deploy/hostile-${i}.yaml`), text);
    const verify = await runRelease(['verify', '--manifests', '--expect', 'v1.4.0'], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(verify.stdout).toContain('in step at v1.4.0');
    expect(verify.code).toBe(0);
  }, 90_000);

  it('a values file of each shape is refused by name and line (exit 2), nothing written', async () => {
    const dir = temp('chart');
    cpSync(join(FIXTURES, 'chain'), dir, { recursive: true });
    rmSync(join(dir, 'expected'), { recursive: true, force: true });
    const before = snapshot(join(dir, 'deploy'));
    for (const [name, text] of Object.entries(shapes)) {
      writeFileSync(join(dir, 'deploy/acme/values-hostile.yaml'), text);
      const bump = await runRelease(['bump', '--version', 'v1.4.0', '--json'], {
        cwd: dir,
        timeoutMs: 60_000,
      });
      expect(bump.code, name).toBe(2);
      const error = jsonOf<{ error: { code: string; message: string } }>(bump).error;
      expect(error.code, name).toBe('MANIFEST_INVALID');
      expect(error.message, name).toMatch(/^deploy\/acme\/values-hostile\.yaml .* \(line \d+: /);
    }
    rmSync(join(dir, 'deploy/acme/values-hostile.yaml'));
    expect(snapshot(join(dir, 'deploy'))).toEqual(before);
  }, 90_000);

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    '%s stops a run reading large hostile files at once (exit %i), not after them',
    async (signal, code) => {
      const dir = plain();
      // About a minute of reading: twenty 2 MB lines, each stopped only by the time budget's worth of lexing.
      const line = Array.from({ length: (2048 * KB) / 4 }, () => '"x"').join(' ');
      for (let i = 0; i < 20; i++) writeFileSync(join(dir, `deploy/big-${i}.yaml`), line);
      const child = spawn(
        process.execPath,
        ['--', RELEASE_BIN, 'verify', '--manifests', '--expect', 'v1.3.0'],
        {
          cwd: dir,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      await new Promise((done) => setTimeout(done, 3_000)); // started, and reading
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      child.kill(signal);
      const deadline = new Promise<'still running'>((done) =>
        setTimeout(() => done('still running'), 20_000),
      );
      const outcome = await Promise.race([exited, deadline]);
      if (outcome === 'still running') child.kill('SIGKILL');
      expect(outcome, stderr).toBe(code);
      expect(stderr).toContain(signal);
    },
    60_000,
  );
});

describe('bumps killed at random moments', () => {
  it('40 runs: every file whole, and after the next run every file at the release with no temporary left', async () => {
    const dir = plain();
    const files = ['deploy/app.yaml', 'deploy/compose.yaml', 'deploy/web.yaml', 'deploy/.env'];
    let interrupted = 0;
    for (let run = 0; run < 40; run++) {
      const tag = `v1.${run + 4}.0`;
      const previous = `v1.${run + 3}.0`;
      const child = spawn(process.execPath, ['--', RELEASE_BIN, 'bump', '--version', tag], {
        cwd: dir,
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      // Node's start-up and the bump take a few hundred ms here: kill anywhere in them.
      setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 900));
      if ((await exited) === null) interrupted++;
      for (const file of files) {
        const text = readFileSync(join(dir, file), 'utf8');
        // Whole: each file holds one release throughout, the one before or this one.
        const tags = new Set(text.match(/v1\.\d+\.0/g));
        expect(
          [...tags].every((t) => t === tag || t === previous),
          `${file} after kill ${run}: ${[...tags]}`,
        ).toBe(true);
        expect(tags.size, `${file} after kill ${run}`).toBe(1);
      }
      const next = spawnSync(process.execPath, ['--', RELEASE_BIN, 'bump', '--version', tag], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(next.status, next.stderr).toBe(0);
      for (const file of files) expect(readFileSync(join(dir, file), 'utf8')).toContain(tag);
      expect(readdirSync(join(dir, 'deploy')).filter((n) => /\.(?:tmp|bak)$/.test(n))).toEqual([]);
    }
    expect(interrupted).toBeGreaterThan(0);
  }, 600_000);

  it("a dead writer's temporaries beside the files go at the next run, a live one's and others' stay", async () => {
    const dir = plain();
    const dead = spawnSync('true').pid!;
    const live = process.pid;
    const names = [
      `app.yaml.${dead}.0a1b2c3d.tmp`,
      `.env.${dead}.0a1b2c3e.bak`,
      `app.yaml.${live}.0a1b2c3f.tmp`,
      `other.yaml.${dead}.0a1b2c40.tmp`,
      'Chart.lock',
    ];
    for (const name of names) writeFileSync(join(dir, 'deploy', name), 'partial');
    const run = await runRelease(['bump', '--version', 'v1.3.0'], { cwd: dir }); // in step: nothing to write
    expect(run.stdout).toContain('already in step');
    const left = readdirSync(join(dir, 'deploy'));
    expect(left).not.toContain(names[0]);
    expect(left).not.toContain(names[1]);
    expect(left).toEqual(expect.arrayContaining([names[2], names[3], 'Chart.lock']));
  });
});
