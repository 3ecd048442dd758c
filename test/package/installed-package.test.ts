import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { packedPackage } from '../helpers/packed-package.ts';
import { startProcess } from '../helpers/start-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const PASSPHRASE = 'correct horse battery staple';

/**
 * The toolkit as a user gets it: `npm pack` (which runs the build), installed with its runtime
 * dependencies only into a fresh CommonJS project (no "type": "module", no TypeScript), and used
 * there with plain `node` and `npx release`: every subpath imported and required, the README's
 * library examples run as written, and every release command that runs on this machine without
 * Docker, from keygen to a signed release promoted from its rc and verified against the
 * package's own `service-api`. This is what catches a runtime import of a devDependency, a file
 * left out of the package or a path that only holds in a checkout.
 */
describe('the installed package', () => {
  let repo: GitRepo;
  let packed: string[];

  beforeAll(async () => {
    // The tarball `npm pack` makes (it runs the build), shared with install-size.test.ts.
    const { tarball, files } = await packedPackage();
    packed = files;
    repo = GitRepo.create('installed-');
    repo.write('package.json', JSON.stringify({ name: 'user-project', private: true }));
    repo.write('.gitignore', 'node_modules/\ndist/\n.release/\nkeys/*.key\n');
    // The cache `npm ci` filled makes this an offline install in CI. express: for the library's
    // middleware example, as a user of it would install it; vite: the optional peer dependency that
    // builds the reference web client, which this project releases (install-size.test.ts checks a
    // project without it).
    execFileSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, 'express@5', 'vite@7'],
      {
        cwd: repo.dir,
        stdio: 'ignore',
        timeout: 240_000,
      },
    );
  }, 600_000);

  afterAll(() => {
    repo?.remove();
  });

  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
    CI: 'true',
    ...extra,
  });
  const npx = (args: string[], extra: Record<string, string> = {}) =>
    spawnSync('npx', ['--no-install', 'release', ...args], {
      cwd: repo.dir,
      encoding: 'utf8',
      env: env(extra),
      timeout: 300_000,
    });
  const json = <T = Record<string, unknown>>(args: string[], extra: Record<string, string> = {}): T => {
    const result = npx([...args, '--json'], extra);
    if (result.status !== 0)
      throw new Error(`release ${args.join(' ')} exited ${result.status}\n${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  };
  const node = (args: string[], extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, args, { cwd: repo.dir, encoding: 'utf8', env: env(extra), timeout: 60_000 });

  it('ships compiled code and declarations, no tests, no tsx or TypeScript at run time', () => {
    expect(
      packed.some((f) => f.endsWith('.test.ts') || f.startsWith('test/') || f.startsWith('bench/')),
    ).toBe(false);
    for (const file of [
      'bin/release.js',
      'lib/release/main.js',
      'lib/index.js',
      'lib/index.d.ts',
      'lib/exports/version-handler.js',
      'lib/exports/version-handler.d.ts',
      'lib/exports/version.d.ts',
      'src/service/web/index.html',
      'templates/docker/api.Dockerfile',
    ])
      expect(packed).toContain(file);
    const installed = readdirSync(join(repo.dir, 'node_modules'));
    for (const devOnly of ['tsx', 'typescript', 'vitest', '@biomejs'])
      expect(installed).not.toContain(devOnly);
  });

  it("puts only `release` on the user's PATH: the reference programs are artifacts, not commands", () => {
    const bin = join(repo.dir, 'node_modules/.bin');
    const ours = readdirSync(bin).filter((name) =>
      realpathSync(join(bin, name)).startsWith(realpathSync(join(repo.dir, 'node_modules/service-release'))),
    );
    expect(ours).toEqual(['release']);
    for (const reference of ['svc', 'service-api', 'service-worker', 'service-web'])
      expect(readdirSync(bin)).not.toContain(reference);
  });

  it('release --version and -V print the package version, --help lists the commands', () => {
    expect(npx(['--version']).stdout).toBe(`release ${VERSION}\n`);
    expect(npx(['-V']).stdout).toBe(`release ${VERSION}\n`);
    const help = npx(['--help']);
    expect(help.status).toBe(0);
    for (const command of ['stamp', 'build', 'base-image', 'promote', 'verify', 'keygen', 'sign', 'rehearse'])
      expect(help.stdout).toContain(command);
  });

  it('imports every subpath in plain node (ESM) and requires them (CommonJS), without a warning', () => {
    writeFileSync(
      join(repo.dir, 'imports.mjs'),
      `import * as root from 'service-release';
import * as handler from 'service-release/version-handler';
import * as version from 'service-release/version';
console.log(JSON.stringify({
  root: [typeof root.createVersionHandler, typeof root.loadConfig, typeof root.planPromotion, typeof root.defineConfig],
  handler: [typeof handler.createVersionHandler, handler.VERSION_PATH, handler.MIN_CLI_VERSION],
  version: [version.satisfiesMinimum('1.4.0', '1.2.0').verdict, version.compareVersionStrings('v1.10.0', 'v1.9.0') > 0,
    version.parseVersion('v1.2.3-rc.1').kind, typeof version.resolveVersion],
}));
`,
    );
    const esm = node(['imports.mjs']);
    expect(esm.stderr).toBe('');
    expect(JSON.parse(esm.stdout)).toEqual({
      root: ['function', 'function', 'function', 'function'],
      handler: ['function', '/api/version', expect.stringMatching(/^\d+\.\d+\.\d+$/)],
      version: ['pass', true, 'rc', 'function'],
    });
    writeFileSync(
      join(repo.dir, 'require.cjs'),
      `const { createVersionHandler } = require('service-release/version-handler');
const { satisfiesMinimum } = require('service-release/version');
const { defineConfig } = require('service-release');
console.log(typeof createVersionHandler, satisfiesMinimum('2.0.0', '1.0.0').verdict, typeof defineConfig);
`,
    );
    const cjs = node(['require.cjs']);
    expect(cjs.stderr).toBe('');
    expect(cjs.stdout).toBe('function pass function\n');
  });

  it('type-checks a consumer of every subpath (NodeNext resolution, declarations only)', {
    timeout: 200_000,
  }, () => {
    mkdirSync(join(repo.dir, 'types'), { recursive: true });
    writeFileSync(
      join(repo.dir, 'types/consumer.mts'),
      `import { createServer } from 'node:http';
import { loadConfig, type ReleaseConfig } from 'service-release';
import { createVersionHandler, MIN_CLI_VERSION, type RequestHandler } from 'service-release/version-handler';
import { satisfiesMinimum, type MinimumResult } from 'service-release/version';
const handler: RequestHandler = createVersionHandler({ version: 'v1.0.0', minCliVersion: MIN_CLI_VERSION });
createServer(handler);
const result: MinimumResult = satisfiesMinimum('1.0.0', '1.0.0');
export const loaded: Promise<{ config: ReleaseConfig }> = loadConfig({ cwd: '.' });
export { result };
// @ts-expect-error the handler takes an options object
createVersionHandler('v1.0.0');
`,
    );
    writeFileSync(
      join(repo.dir, 'types/tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          // Our declarations are checked where this consumer uses them; all of @types/node is not.
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
        files: ['consumer.mts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'types'], {
      cwd: repo.dir,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('runs the library examples of docs/reference/reference-service.md as written', async () => {
    const readme = readFileSync(join(ROOT, 'docs/reference/reference-service.md'), 'utf8');
    const examples = [...readme.matchAll(/<!-- example: (\S+) -->\n```js\n([\s\S]*?)```/g)];
    expect(examples.map((m) => m[1])).toEqual(['server.mjs', 'express.mjs']);
    for (const [, file, code] of examples) {
      writeFileSync(join(repo.dir, file!), code!);
      const server = await startProcess(join(repo.dir, file!), {
        cwd: repo.dir,
        env: { PORT: '0', SERVICE_VERSION: 'v2.3.0' },
        readyPattern: /listening on (http:\/\/\S+)/,
      });
      try {
        const response = await fetch(server.url);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ version: 'v2.3.0', min_cli_version: expect.any(String) });
      } finally {
        await server.stop();
      }
    }
  });

  it('runs every release command here: keygen, stamp, base-image, build, promote rc and release, sign, verify', async () => {
    const keys = json<{ publicKey: string }>(['keygen', '--out', 'keys'], {
      RELEASE_SIGNING_PASSPHRASE: PASSPHRASE,
    });
    expect(keys.publicKey).toMatch(/keys\/.*\.pub$/);
    const pub = readdirSync(join(repo.dir, 'keys')).find((f) => f.endsWith('.pub'))!;
    const key = readdirSync(join(repo.dir, 'keys')).find((f) => f.endsWith('.key'))!;
    // A TypeScript config in this CommonJS project, type annotations and all.
    repo.write(
      'release.config.ts',
      `import { defineConfig } from 'service-release';
import { referenceArtifacts } from 'service-release/reference';
const registry: string = 'oci-layout:.release/oci';
export default defineConfig({
  registry,
  // The reference service, declared as any project declares its artifacts.
  artifacts: referenceArtifacts(),
  signing: { publicKey: 'keys/${pub}', privateKey: 'keys/${key}' },
});
`,
    );
    repo.commit('add service-release');
    repo.annotatedTag('v2.3.0-rc.1');
    const signing = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };

    expect(json(['stamp'])).toMatchObject({ version: 'v2.3.0-rc.1', channel: 'rc', source: 'git' });
    const base = npx(['base-image']);
    expect(base.status, base.stderr).toBe(0);
    const built = json<{ images: Record<string, { digest: string }> }>(['build', '--engine', 'oci']);
    for (const name of ['api', 'worker', 'web'])
      expect(built.images[name]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readdirSync(join(repo.dir, 'dist'))).toContain('service-cli.tar.gz');

    expect(json(['promote', '--channel', 'rc'], signing)).toMatchObject({
      tag: 'v2.3.0-rc.1',
      channel: 'rc',
    });
    const resign = npx(['sign', '--channel', 'rc'], signing);
    expect(resign.status, resign.stderr).toBe(0);
    const released = json(
      ['promote', '--channel', 'release', '--from', 'v2.3.0-rc.1', '--version', 'v2.3.0'],
      signing, // the release is signed too, bound to the rc it came from
    );
    expect(released).toMatchObject({ tag: 'v2.3.0', channel: 'release' });

    // The package's own reference API, reporting the released version, read by release verify.
    // Not on PATH: the package's reference API runs through node, as docs/reference/package.md says.
    const api = await startProcess(join(repo.dir, 'node_modules/service-release/bin/service-api.js'), {
      cwd: repo.dir,
      env: { HOST: '127.0.0.1', PORT: '0', SERVICE_VERSION: 'v2.3.0' },
    });
    try {
      const verify = npx(['verify', '--url', api.url, '--json']);
      const report = JSON.parse(verify.stdout) as { artifacts: { name: string; version: string | null }[] };
      expect(report.artifacts.find((a) => a.name === 'api')?.version).toBe('v2.3.0');
      expect([0, 1]).toContain(verify.status);
      // The reference config declares its CLI (bin svc); the package put none on PATH to find.
      expect(verify.stdout).not.toContain('node_modules/.bin/svc');
      // A project that declares no CLI gets no CLI row at all.
      mkdirSync(join(repo.dir, 'no-cli'));
      writeFileSync(join(repo.dir, 'no-cli/release.config.json'), '{"artifacts":{"api":{}}}');
      const bare = npx(['verify', '--url', api.url, '--json', '--cwd', 'no-cli']);
      expect(bare.status, bare.stdout).toBe(0);
      expect(
        (JSON.parse(bare.stdout) as { artifacts: { name: string }[] }).artifacts.map((a) => a.name),
      ).not.toContain('cli');
    } finally {
      await api.stop();
    }
  }, 600_000);
});
