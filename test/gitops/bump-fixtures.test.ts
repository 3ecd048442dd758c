import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRelease } from '../helpers/run-release.ts';

// `release bump` on the fixtures in fixtures/gitops: each written file equals its golden copy in
// <fixture>/expected/, every other file is byte for byte what it was, and `release verify
// --manifests` is in step afterwards. kubectl (with its built-in kustomize) renders the overlay.
const FIXTURES = join(import.meta.dirname, '../../fixtures/gitops');
const SHAPES = ['sentry-like', 'global-override', 'chain', 'mattermost-like', 'kustomize', 'plain'];
const DIGEST = `sha256:${'a1'.repeat(32)}`;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function copyOf(shape: string): string {
  const dir = mkdtempSync(join(tmpdir(), `sr-gitops-${shape}-`));
  made.push(dir);
  cpSync(join(FIXTURES, shape), dir, { recursive: true });
  rmSync(join(dir, 'expected'), { recursive: true, force: true });
  return dir;
}

/** Every file under dir/deploy and its text. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(join(dir, 'deploy'));
  return out;
}

function record(dir: string, tag: string, artifacts: Record<string, string>): void {
  writeFileSync(
    join(dir, 'dist-release.json'),
    JSON.stringify({
      schemaVersion: 1,
      version: tag,
      tag,
      channel: 'release',
      source: 'git',
      commit: null,
      dirty: false,
      commitTime: null,
      artifacts: Object.fromEntries(
        Object.entries(artifacts).map(([name, image]) => [
          name,
          { repository: `ghcr.io/${image}`, references: [`ghcr.io/${image}:${tag}`], digest: DIGEST },
        ]),
      ),
    }),
  );
  const config = JSON.parse(readFileSync(join(dir, 'release.config.json'), 'utf8'));
  writeFileSync(join(dir, 'release.config.json'), JSON.stringify({ ...config, record: 'dist-release.json' }));
}

describe('release bump on the fixture shapes', () => {
  for (const shape of SHAPES) {
    it(`${shape}: writes exactly the golden keys, then verify --manifests is in step`, async () => {
      const dir = copyOf(shape);
      const before = snapshot(dir);
      const bump = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
      expect(bump.stderr).toBe('');
      expect(bump.code).toBe(0);
      expect(bump.stdout).toMatch(/^v1\.4\.0 \(from --version\): .*: written/);
      const after = snapshot(dir);
      let changed = 0;
      for (const [path, text] of after) {
        const golden = join(FIXTURES, shape, 'expected', path);
        if (existsSync(golden)) {
          changed++;
          expect(text, path).toBe(readFileSync(golden, 'utf8'));
          expect(text, path).not.toBe(before.get(path));
        } else expect(text, path).toBe(before.get(path));
      }
      expect(changed).toBeGreaterThan(0);

      const verify = await runRelease(['verify', '--manifests', '--expect', 'v1.4.0'], { cwd: dir });
      expect(verify.stdout).toContain('in step at v1.4.0 (from --expect)');
      expect(verify.code).toBe(0);
      const again = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
      expect(again.stdout).toContain('already in step, nothing written');
      expect(snapshot(dir)).toEqual(after);
    });
  }

  it('kustomize: kubectl kustomize renders the overlay with the release images', async () => {
    const dir = copyOf('kustomize');
    const images = () =>
      execFileSync('kubectl', ['kustomize', join(dir, 'deploy/overlays/prod')], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes('image:'))
        .map((l) => l.trim())
        .sort();
    expect(images()).toContain('- image: ghcr.io/acme/service-api:v1.3.0');
    expect((await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir })).code).toBe(0);
    expect(images()).toEqual([
      '- image: ghcr.io/acme/service-api:v1.4.0',
      '- image: ghcr.io/acme/service-worker:v1.4.0',
      '- image: registry.acme.internal/acme/service-web:v1.4.0',
    ]);
  });

  it('plain: docker-compose resolves the bumped anchors and .env to the release', async () => {
    const dir = copyOf('plain');
    expect((await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir })).code).toBe(0);
    const config = execFileSync('docker-compose', ['-f', 'compose.yaml', 'config'], {
      cwd: join(dir, 'deploy'),
      encoding: 'utf8',
    });
    const images = [...config.matchAll(/image: (\S+)/g)].map((m) => m[1]).sort();
    expect(images).toEqual([
      'ghcr.io/acme/service-api:v1.4.0',
      'ghcr.io/acme/service-api:v1.4.0',
      'ghcr.io/acme/service-api:v1.4.0',
      'ghcr.io/acme/service-web:v1.4.0',
      'redis:7',
    ]);
    expect([...config.matchAll(/SERVICE_VERSION: (\S+)/g)].map((m) => m[1])).toEqual(['v1.4.0', 'v1.4.0']);
  });

  it('an image no file names: exit 1 naming it, and no file changes', async () => {
    const dir = copyOf('plain');
    const config = JSON.parse(readFileSync(join(dir, 'release.config.json'), 'utf8'));
    config.artifacts.scheduler = { image: 'acme/scheduler' };
    writeFileSync(join(dir, 'release.config.json'), JSON.stringify(config));
    const before = snapshot(dir);
    const bump = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
    expect(bump.code).toBe(1);
    expect(bump.stderr).toContain('v1.4.0 cannot be written: 1 image(s) have no place, no file was changed');
    expect(bump.stderr).toContain('scheduler: no deployment file names the image acme/scheduler');
    const json = await runRelease(['bump', '--version', 'v1.4.0', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'BUMP_UNPLACED', exitCode: 1 });
    expect(snapshot(dir)).toEqual(before);
    const verify = await runRelease(['verify', '--manifests', 'deploy', '--expect', 'v1.3.0', '--json'], {
      cwd: dir,
    });
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout);
    expect(report.findings.map((f: { code: string }) => f.code)).toEqual(['MANIFEST_ARTIFACT_MISSING']);
  });

  it('a role of one image whose command no container runs: exit 1 naming it; once a CronJob runs it, written', async () => {
    const dir = copyOf('plain');
    rmSync(join(dir, 'deploy/compose.yaml'));
    rmSync(join(dir, 'deploy/.env'));
    const config = JSON.parse(readFileSync(join(dir, 'release.config.json'), 'utf8'));
    config.artifacts.scheduler = {
      role: 'worker',
      image: 'acme/service-api',
      command: ['node', 'scheduler.js'],
    };
    writeFileSync(join(dir, 'release.config.json'), JSON.stringify(config));
    const before = snapshot(dir);
    const bump = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
    expect(bump.stderr).toContain(
      'scheduler: no container or service of acme/service-api runs its command "node scheduler.js"',
    );
    expect(bump.code).toBe(1);
    expect(snapshot(dir)).toEqual(before);
    config.artifacts.scheduler.command = ['worker.js', '--once'];
    writeFileSync(join(dir, 'release.config.json'), JSON.stringify(config));
    expect((await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir })).code).toBe(0);
  });

  it('--dry-run prints the diff and writes nothing', async () => {
    const dir = copyOf('chain');
    const before = snapshot(dir);
    const bump = await runRelease(['bump', '--version', '1.4.0', '--dry-run'], { cwd: dir });
    expect(bump.code).toBe(0);
    expect(bump.stdout).toContain('--- a/deploy/acme/Chart.yaml');
    expect(bump.stdout).toContain('-appVersion: "v1.3.0"\n+appVersion: "v1.4.0"');
    expect(snapshot(dir)).toEqual(before);
  });

  it('--pin-digest writes tag@digest from the record, a digest key in kustomize; a pin it cannot renew is refused', async () => {
    const chat = copyOf('mattermost-like');
    record(chat, 'v1.4.0', { api: 'acme/chat' });
    const pinned = await runRelease(['bump', '--pin-digest'], { cwd: chat });
    expect(pinned.stderr).toBe('');
    expect(pinned.stdout).toContain('from the release record dist-release.json');
    const values = readFileSync(join(chat, 'deploy/chat/values.yaml'), 'utf8');
    expect(values).toContain(`    tag: v1.4.0@${DIGEST}\n`);
    expect((await runRelease(['verify', '--manifests'], { cwd: chat })).code).toBe(0);
    // The next release without its digest: the pinned tag cannot be renewed, so nothing is written.
    rmSync(join(chat, 'dist-release.json'));
    const before = snapshot(chat);
    const next = await runRelease(['bump', '--version', 'v1.5.0'], { cwd: chat });
    expect(next.code).toBe(1);
    expect(next.stderr).toMatch(
      /api, worker: pinned by digest \(sha256:a1a1a1a1a1a1\S*\) and the release's digest of acme\/chat is unknown/,
    );
    expect(snapshot(chat)).toEqual(before);

    const kustomize = copyOf('kustomize');
    record(kustomize, 'v1.4.0', {
      api: 'acme/service-api',
      worker: 'acme/service-worker',
      web: 'acme/service-web',
    });
    expect((await runRelease(['bump', '--pin-digest'], { cwd: kustomize })).code).toBe(0);
    const rendered = execFileSync('kubectl', ['kustomize', join(kustomize, 'deploy/overlays/prod')], {
      encoding: 'utf8',
    });
    expect(rendered).toContain(`image: ghcr.io/acme/service-api:v1.4.0@${DIGEST}`);
  });

  it('names the file and key of a stale worker tag, a stale appVersion and a stale env value', async () => {
    const dir = copyOf('stale');
    const verify = await runRelease(['verify', '--manifests', '--expect', 'v1.4.0', '--json'], { cwd: dir });
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout);
    expect(report.findings.map((f: { code: string; source: string }) => [f.code, f.source])).toEqual([
      ['MANIFEST_TAG_STALE', 'deploy/acme/values.yaml worker.image.tag'],
      ['MANIFEST_APP_VERSION_STALE', 'deploy/acme/Chart.yaml appVersion'],
      ['MANIFEST_ENV_STALE', 'deploy/plain/migrate.yaml spec.template.spec.containers[0].env[0].value'],
    ]);
    const text = await runRelease(['verify', '--manifests', '--expect', 'v1.4.0'], { cwd: dir });
    expect(text.stdout).toContain('DRIFT at v1.4.0 (from --expect): 3 findings');
    expect(text.stdout).toMatch(/worker +deploy\/acme\/values\.yaml worker\.image\.tag +v1\.3\.0 +DRIFT/);
    expect((await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir })).code).toBe(0);
    expect((await runRelease(['verify', '--manifests', '--expect', 'v1.4.0'], { cwd: dir })).code).toBe(0);
  });

  it('a symbolic link under the manifests is not followed', async () => {
    const dir = copyOf('chain');
    const outside = copyOf('plain');
    symlinkSync(join(outside, 'deploy'), join(dir, 'deploy/elsewhere'));
    symlinkSync(join(outside, 'deploy/app.yaml'), join(dir, 'deploy/app.yaml'));
    const before = readFileSync(join(outside, 'deploy/app.yaml'), 'utf8');
    const bump = await runRelease(['bump', '--version', 'v1.4.0', '--json'], { cwd: dir });
    expect(bump.code).toBe(0);
    expect(JSON.parse(bump.stdout).files).toEqual(['deploy/acme/values.yaml', 'deploy/acme/Chart.yaml']);
    expect(readFileSync(join(outside, 'deploy/app.yaml'), 'utf8')).toBe(before);
  });

  it('usage errors exit 2 with a hint, before reading any file', async () => {
    const dir = copyOf('chain');
    const cases: [string[], string][] = [
      [['bump'], 'no release record at'],
      [['bump', '--version', 'not a version'], '--version "not a version" is not a version'],
      [['bump', '--version', 'v1.4.0', '--manifests', 'nowhere'], 'no deployment files at'],
      [
        ['verify', '--manifests', '--url', 'http://127.0.0.1:9'],
        '--manifests checks files, not a live deployment',
      ],
      [['bump', '--version', 'v1.4.0', '--pin-digest'], '--pin-digest needs the release record of v1.4.0'],
    ];
    for (const [args, message] of cases) {
      const run = await runRelease(args, { cwd: dir });
      expect([run.code, run.stderr], args.join(' ')).toEqual([2, expect.stringContaining(message)]);
      expect(run.stderr).toContain('hint: ');
    }
    writeFileSync(join(dir, 'release.config.json'), '{}');
    const none = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
    expect([none.code, none.stderr]).toEqual([
      2,
      expect.stringContaining('which deployment files? none are configured'),
    ]);
  });

  it('a values file that is not YAML stops the run before any write (exit 2)', async () => {
    const dir = copyOf('global-override');
    writeFileSync(join(dir, 'deploy/acme/values-broken.yaml'), 'image: [unclosed\n');
    const before = snapshot(dir);
    const bump = await runRelease(['bump', '--version', 'v1.4.0'], { cwd: dir });
    expect(bump.code).toBe(2);
    expect(bump.stderr).toContain('deploy/acme/values-broken.yaml is not valid YAML');
    expect(snapshot(dir)).toEqual(before);
  });
});
