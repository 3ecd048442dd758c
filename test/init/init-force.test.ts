import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importTypeScriptConfig } from '../../src/config/import-config.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// `release init --force` over a config the user has edited since the last init: their values
// (registry, signing, names, any key) win, what init finds now fills the gaps, nothing is dropped
// without being named, and the difference is shown. `--registry` replaces the registry only.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function put(repo: GitRepo, path: string, text: string): void {
  mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
  writeFileSync(join(repo.dir, path), text);
}

function service(): GitRepo {
  const repo = GitRepo.create('init-force-');
  repos.push(repo);
  put(
    repo,
    'api/Dockerfile',
    'FROM node:22-slim\nARG ACME_VERSION\nCOPY . /app\nCMD ["node", "/app/server.js"]\n',
  );
  put(repo, 'package.json', '{"name":"acme","devDependencies":{"dockerode":"^4.0.0"}}');
  put(repo, 'package-lock.json', '{"lockfileVersion":3}');
  put(repo, '.github/workflows/test.yml', 'on: push\njobs: {}\n');
  repo.commit('service');
  return repo;
}

const release = (repo: GitRepo, args: string[]) => runRelease(args, { cwd: repo.dir, timeoutMs: 240_000 });

type Loaded = {
  registry: string;
  signing: Record<string, string>;
  deploy?: unknown;
  artifacts: Record<string, Record<string, unknown> | false>;
};

describe('release init --force', () => {
  it('release.config.ts: keeps the registry, signing, an image name and added keys; adds what it finds now; shows the diff', async () => {
    const repo = service();
    expect((await release(repo, ['init', '--yes'])).code).toBe(0);
    const first = readFileSync(join(repo.dir, 'release.config.ts'), 'utf8');
    // The user's edits since: a registry, their signing keys, another image name, build args, a
    // key init never writes, an artifact of their own.
    const edited = first
      .replace("registry: 'oci-layout:.release/oci'", "registry: 'ghcr.io/acme'")
      .replace(
        "signing: { publicKey: 'release-signing.pub' }",
        "signing: { publicKey: 'keys/release.pub', privateKey: 'keys/release.key' },\n  deploy: { manifests: ['deploy/app.yaml'] }",
      )
      .replace("image: 'acme-api'", "image: 'acme-server', buildArgs: { NODE_ENV: 'production' }");
    expect(edited).not.toBe(first);
    writeFileSync(join(repo.dir, 'release.config.ts'), edited);
    // And the repository has grown a worker since.
    put(repo, 'worker/Dockerfile', 'FROM node:22-slim\nCOPY . /app\nCMD ["node", "/app/worker.js"]\n');

    const forced = await release(repo, ['init', '--yes', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const config = (await importTypeScriptConfig(join(repo.dir, 'release.config.ts'))) as Loaded;
    expect(config.registry).toBe('ghcr.io/acme');
    expect(config.signing).toEqual({ publicKey: 'keys/release.pub', privateKey: 'keys/release.key' });
    expect(config.deploy).toEqual({ manifests: ['deploy/app.yaml'] });
    expect(config.artifacts['api']).toEqual(
      expect.objectContaining({
        image: 'acme-server',
        buildArgs: { NODE_ENV: 'production' },
        context: 'api',
      }),
    );
    expect(config.artifacts['worker']).toEqual(
      expect.objectContaining({ image: 'acme-worker', context: 'worker' }),
    );
    // Named in the report, and the difference shown.
    expect(forced.stdout).toContain('kept from release.config.ts (your edits win; nothing is dropped):');
    expect(forced.stdout).toContain('registry: yours, "ghcr.io/acme" (init found "oci-layout:.release/oci")');
    expect(forced.stdout).toContain('artifacts.api.image: yours, "acme-server" (init found "acme-api")');
    expect(forced.stdout).toContain('deploy: yours, kept (init does not write it)');
    expect(forced.stdout).toContain('artifacts.worker: was false, found now (found: worker/Dockerfile)');
    expect(forced.stdout).not.toContain('registry: images go to the embedded OCI layout');
    expect(forced.stderr).toContain('replacing release.config.ts:');
    expect(forced.stderr).toMatch(/^-\s+worker: false,$/m);
    expect(forced.stderr).not.toMatch(/^-.*ghcr\.io\/acme/m);
    // The workflow follows the registry kept: ghcr.io's login, images pushed.
    const workflow = readFileSync(join(repo.dir, '.github/workflows/release.yml'), 'utf8');
    expect(workflow).toContain('registry: ghcr.io');
    expect(workflow).toContain('packages: write');
    expect(workflow).toMatch(/npx release build --engine (oci|docker) --push --json/);
    // What it wrote is a config its own dry run takes.
    const dryRun = await release(repo, ['build', '--dry-run']);
    expect(dryRun.code, `${dryRun.stdout}${dryRun.stderr}`).toBe(0);
  });

  it('release.config.json with --registry: the registry replaced, every other edit kept; an artifact of the user kept and named', async () => {
    const repo = service();
    expect((await release(repo, ['init', '--yes', '--format', 'json'])).code).toBe(0);
    const path = join(repo.dir, 'release.config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.registry = 'ghcr.io/acme';
    config.signing = { publicKey: 'keys/release.pub' };
    config.artifacts.api.image = 'acme-server';
    config.artifacts.migrate = { role: 'worker', image: 'acme-server', command: ['node', 'migrate.js'] };
    writeFileSync(path, JSON.stringify(config, null, 2));

    const forced = await release(repo, [
      'init',
      '--yes',
      '--force',
      '--format',
      'json',
      '--json',
      '--registry',
      'registry.example.com/acme',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(written.registry).toBe('registry.example.com/acme');
    expect(written.signing).toEqual({ publicKey: 'keys/release.pub' });
    expect(written.artifacts.api.image).toBe('acme-server');
    expect(written.artifacts.migrate).toEqual(config.artifacts.migrate);
    expect(written.versionVariables).toEqual({ server: ['ACME_VERSION'], client: [] });
    const out = jsonOf<{ merged: { from: string; kept: string[]; added: string[] } }>(forced);
    expect(out.merged.from).toBe('release.config.json');
    expect(out.merged.kept).toEqual(
      expect.arrayContaining([
        'registry: "registry.example.com/acme" (--registry), replacing yours, "ghcr.io/acme"',
        'artifacts.migrate: yours, kept (init did not find it now)',
        'signing: yours, kept',
      ]),
    );
    const workflow = readFileSync(join(repo.dir, '.github/workflows/release.yml'), 'utf8');
    expect(workflow).toContain('registry: registry.example.com');
    expect(workflow).toContain('secrets.REGISTRY_PASSWORD');
  });

  it('refuses a config with values it cannot write back, writing nothing', async () => {
    const repo = service();
    const text =
      "export default { registry: 'ghcr.io/acme', artifacts: { api: { image: 'acme-api', context: 'api', cmd: [String(() => 1)] } }, hooks: { before: () => 1 } };\n";
    writeFileSync(join(repo.dir, 'release.config.ts'), text);
    const forced = await release(repo, ['init', '--yes', '--force']);
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain(
      'release.config.ts holds values it cannot write back as they are (hooks.before)',
    );
    expect(readFileSync(join(repo.dir, 'release.config.ts'), 'utf8')).toBe(text);
  });
});
