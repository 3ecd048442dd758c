import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The toolkit as a user gets it: `npm pack`, installed into a fresh project, run through `npx`.
 * This is what catches a runtime import of a devDependency or a file left out of the package,
 * which every in-repository test would miss.
 */
describe('the installed package', () => {
  let repo: GitRepo;
  let packDir: string;

  beforeAll(() => {
    packDir = mkdtempSync(join(tmpdir(), 'sr-pack-'));
    execFileSync('npm', ['pack', '--pack-destination', packDir], { cwd: ROOT, stdio: 'ignore' });
    const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
    repo = GitRepo.create('installed-');
    repo.write('package.json', JSON.stringify({ name: 'user-project', private: true }));
    repo.write('.gitignore', 'node_modules/\ndist/\n.release/\n');
    // The cache `npm ci` filled makes this an offline install in CI.
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: repo.dir,
      stdio: 'ignore',
      timeout: 240_000,
    });
    // Installing edits package.json: commit it, as a user would, so the release is clean.
    repo.commit('add service-release');
    repo.annotatedTag('v2.3.0');
  }, 300_000);

  afterAll(() => {
    repo?.remove();
    rmSync(packDir, { recursive: true, force: true });
  });

  const npx = (args: string[]) =>
    execFileSync('npx', ['--no-install', 'release', ...args], {
      cwd: repo.dir,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('ships no tests and no development files', () => {
    const listing = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: ROOT, encoding: 'utf8' });
    const files = (JSON.parse(listing) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files.some((f) => f.endsWith('.test.ts') || f.startsWith('test/') || f.startsWith('bench/'))).toBe(
      false,
    );
    expect(files).toContain('bin/release.js');
    expect(files).toContain('src/service/web/index.html');
    expect(files).toContain('templates/docker/api.Dockerfile');
  });

  it('runs release stamp through npx in a project that installed it', () => {
    const out = JSON.parse(npx(['stamp', '--json'])) as Record<string, unknown>;
    expect(out).toMatchObject({ version: 'v2.3.0', tag: 'v2.3.0', channel: 'release', source: 'git' });
  });

  it('builds the reference artifacts from the installed package (daemonless)', () => {
    // The reference service, declared as any project declares its artifacts.
    writeFileSync(
      join(repo.dir, 'release.config.mjs'),
      "import { referenceArtifacts } from 'service-release/reference';\n" +
        "export default { registry: 'oci-layout:.release/oci', artifacts: referenceArtifacts() };\n",
    );
    const out = JSON.parse(npx(['build', '--engine', 'oci', '--only', 'api,web', '--json'])) as {
      images: Record<string, { digest: string }>;
    };
    expect(out.images['api']!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(out.images['web']!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  }, 180_000);
});
