import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { imageOfRole } from './artifacts.ts';
import { loadConfig } from './load.ts';
import { validateConfig } from './validate.ts';

const dirs: string[] = [];
function tempDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'sr-config-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('validateConfig', () => {
  it('fills defaults that describe the reference artifacts and the embedded store', () => {
    const base = 'oci-layout:.release/base/node:20';
    expect(validateConfig({}, 'x')).toEqual({
      registry: 'oci-layout:.release/oci',
      insecureRegistries: [],
      record: 'dist/release.json',
      deployments: [],
      artifacts: {
        // `implicit`: defaults of roles the config does not declare (verify checks no implicit CLI).
        api: { kind: 'image', name: 'api', role: 'api', image: 'service-api', base, implicit: true },
        worker: {
          kind: 'image',
          name: 'worker',
          role: 'worker',
          image: 'service-worker',
          base,
          implicit: true,
        },
        web: { kind: 'image', name: 'web', role: 'web', image: 'service-web', base, implicit: true },
        cli: {
          implicit: true,
          kind: 'cli',
          name: 'cli',
          role: 'cli',
          package: 'service-cli',
          installCommand: 'npm install -g {url}',
          publish: false,
        },
      },
      // The skew policy's defaults are "equal", the behaviour before `skew:` existed.
      skew: {
        web: { minor: 0, patch: 0, beyond: 'drift' },
        cli: { minor: 0, patch: 0, beyond: 'drift' },
        dev: 'drift',
        unknown: 'drift',
      },
      versionVariables: { server: [], client: [] },
    });
  });

  it('reads a graded skew policy and rejects unknown keys in it', () => {
    const config = validateConfig({ skew: { web: { minor: 1 }, cli: { minor: 1, beyond: 'warn' } } }, 'x');
    expect(config.skew.web).toEqual({ minor: 1, patch: 0, beyond: 'drift' });
    expect(config.skew.cli).toEqual({ minor: 1, patch: 0, beyond: 'warn' });
    expect(config.skew.dev).toBe('drift');
    expect(() => validateConfig({ skew: { worker: { minor: 1 } } }, 'x')).toThrow(/skew/);
    expect(() => validateConfig({ skew: { web: { minor: -1 } } }, 'x')).toThrow(/skew\.web\.minor/);
  });

  it('keeps given values and defaults the rest', () => {
    const config = validateConfig(
      { registry: '127.0.0.1:5000/acme', artifacts: { api: { image: 'acme-api' } } },
      'x',
    );
    expect(config.registry).toBe('127.0.0.1:5000/acme');
    expect(imageOfRole(config, 'api')).toBe('acme-api');
    expect(imageOfRole(config, 'worker')).toBe('service-worker');
  });

  it.each(['localhost:5000', 'registry.example.com/team/sub', 'oci-layout:/abs/dir', '[::1]:5000/x'])(
    'accepts registry %s',
    (registry) => {
      expect(validateConfig({ registry }, 'x').registry).toBe(registry);
    },
  );

  it('reports every problem at once as path: message, unknown keys included', () => {
    let error: unknown;
    try {
      validateConfig(
        {
          registry: 'not a registry',
          colour: 'blue',
          artifacts: { api: { image: 'Bad Name', tag: 'x' }, cli: { package: 'NO' } },
        },
        'release.config.ts',
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^registry: expected a registry/),
        'colour: unknown key',
        expect.stringMatching(/^artifacts\.api\.image: expected a lowercase repository name/),
        'artifacts.api.tag: unknown key',
        expect.stringMatching(/^artifacts\.cli\.package: expected an npm package name/),
      ]),
    );
    expect(problems).toHaveLength(5);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as ConfigError).message).toContain('release.config.ts');
  });
});

describe('loadConfig', () => {
  it('uses defaults when there is no config file', async () => {
    const dir = tempDir();
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.filepath).toBeUndefined();
    expect(loaded.config.registry).toBe('oci-layout:.release/oci');
  });

  it('prefers release.config.ts over the other forms', async () => {
    const dir = tempDir({
      'release.config.ts': `const registry: string = 'ts.example.com/a';\nexport default { registry };\n`,
      'release.config.json': JSON.stringify({ registry: 'json.example.com/a' }),
    });
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.filepath).toBe(join(dir, 'release.config.ts'));
    expect(loaded.config.registry).toBe('ts.example.com/a');
  });

  it.each([
    ['release.config.mjs', `export default { registry: 'mjs.example.com/a' };`, 'mjs.example.com/a'],
    ['release.config.js', `export default { registry: 'js.example.com/a' };`, 'js.example.com/a'],
    ['release.config.json', JSON.stringify({ registry: 'json.example.com/a' }), 'json.example.com/a'],
    [
      'package.json',
      JSON.stringify({ name: 'x', type: 'module', release: { registry: 'pkg.example.com/a' } }),
      'pkg.example.com/a',
    ],
  ])('loads %s', async (file, content, registry) => {
    const dir = tempDir({
      [file]: content,
      ...(file.endsWith('.js') ? { 'package.json': '{"type":"module"}' } : {}),
    });
    expect((await loadConfig({ cwd: dir })).config.registry).toBe(registry);
  });

  it('loads an explicit --config path and rejects a missing one', async () => {
    const dir = tempDir({ 'custom.json': JSON.stringify({ record: 'out/record.json' }) });
    expect((await loadConfig({ cwd: dir, configPath: 'custom.json' })).config.record).toBe('out/record.json');
    await expect(loadConfig({ cwd: dir, configPath: 'missing.json' })).rejects.toThrow(
      /config file not found/,
    );
  });

  it('turns a syntax error into a ConfigError', async () => {
    const dir = tempDir({ 'release.config.json': '{ "registry": ' });
    await expect(loadConfig({ cwd: dir })).rejects.toBeInstanceOf(ConfigError);
  });

  it('a config that is null, a list or a string is CONFIG_INVALID naming it, never the defaults', async () => {
    const cases: [string, string][] = [
      ['null', 'null'],
      ['[]', 'a list'],
      ['"registry.example.com"', 'string'],
      ['42', 'number'],
    ];
    for (const [text, got] of cases) {
      const dir = tempDir({ 'release.config.json': text });
      const error = await loadConfig({ cwd: dir }).catch((e: unknown) => e);
      expect(error, text).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).exitCode).toBe(2);
      expect((error as ConfigError).message).toContain(`(root): expected an object of settings, got ${got}`);
    }
    // Empty is still no config at all.
    expect((await loadConfig({ cwd: tempDir({ 'release.config.json': '' }) })).config.registry).toBeDefined();
  });

  it('an artifact (or any key) named __proto__, constructor or prototype is CONFIG_INVALID naming it', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const text = `{"artifacts": {"${name}": {"image": "acme/x"}, "api": {"image": "acme/api"}}}`;
      const dir = tempDir({ 'release.config.json': text });
      const error = await loadConfig({ cwd: dir }).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toContain(
        `artifacts.${name}: "${name}" is not a name a config may use`,
      );
    }
    const nested = `{"deploy": {"manifests": [{"path": "x.yaml", "keys": {"__proto__": "api"}}]}}`;
    expect(() => validateConfig(JSON.parse(nested), 'nested')).toThrow(
      /deploy\.manifests\.0\.keys\.__proto__: "__proto__" is not a name/,
    );
  });

  it('does not pick up a config from a parent directory', async () => {
    const parent = tempDir({ 'release.config.json': JSON.stringify({ registry: 'parent.example.com/a' }) });
    const child = join(parent, 'child');
    (await import('node:fs')).mkdirSync(child);
    expect((await loadConfig({ cwd: child })).config.registry).toBe('oci-layout:.release/oci');
  });
});

describe('a config module read twice by one process', () => {
  it('is read afresh after it changed (an embedder, or tests, running commands in process)', async () => {
    const dir = tempDir({
      'release.config.mjs': 'export default { signing: { publicKey: "a.pub", privateKey: "a.key" } };',
    });
    expect((await loadConfig({ cwd: dir })).config.signing).toEqual({
      publicKey: 'a.pub',
      privateKey: 'a.key',
    });
    writeFileSync(join(dir, 'release.config.mjs'), 'export default { signing: { publicKey: "a.pub" } };');
    expect((await loadConfig({ cwd: dir })).config.signing).toEqual({ publicKey: 'a.pub' });
  });
});

describe('versionVariables', () => {
  const problems = (raw: unknown): string[] => {
    try {
      validateConfig(raw, 'x');
    } catch (error) {
      return (error as ConfigError).problems;
    }
    return [];
  };

  it('adds the names the service reads beside the standard ones', async () => {
    const { serverVersionVariables, clientVersionVariables, versionEnv } = await import(
      './version-variables.ts'
    );
    const config = validateConfig(
      { versionVariables: { server: ['ACME_VERSION'], client: ['VITE_ACME_VERSION'] } },
      'x',
    );
    expect(serverVersionVariables(config)).toEqual(['SERVICE_VERSION', 'ACME_VERSION']);
    expect(clientVersionVariables(config)).toEqual(['SERVICE_CLIENT_VERSION', 'VITE_ACME_VERSION']);
    expect(versionEnv(config, 'v1.3.0-rc.1')).toEqual({
      SERVICE_VERSION: 'v1.3.0-rc.1',
      ACME_VERSION: 'v1.3.0-rc.1',
      SERVICE_CLIENT_VERSION: 'v1.3.0-rc.1',
      VITE_ACME_VERSION: 'v1.3.0-rc.1',
    });
    // A config validated before the key existed (a kept cache) reads as no extra names.
    expect(serverVersionVariables({})).toEqual(['SERVICE_VERSION']);
    expect(validateConfig({ versionVariables: { client: ['VITE_V'] } }, 'x').versionVariables).toEqual({
      server: [],
      client: ['VITE_V'],
    });
  });

  it('refuses names that are not variables, the standard ones, the system ones, repeats and overlaps', () => {
    expect(
      problems({ versionVariables: { server: ['ACME-VERSION', 'SERVICE_VERSION', 'PATH', 'LD_PRELOAD'] } }),
    ).toEqual([
      'versionVariables.server.0: expected an environment variable name like "ACME_VERSION"',
      'versionVariables.server.1: SERVICE_VERSION is always set; list only the names beside it',
      'versionVariables.server.2: expected a name of your own, not one the system reads',
      'versionVariables.server.3: expected a name of your own, not one the system reads',
    ]);
    expect(problems({ versionVariables: { server: ['A', 'A'] } })).toEqual([
      'versionVariables.server: expected each name once',
    ]);
    expect(problems({ versionVariables: { server: ['A'], client: ['A'] } })).toEqual([
      'versionVariables: a name is either a server or a client version variable, not both',
    ]);
    expect(problems({ versionVariables: { server: [], other: [] } })).toEqual([
      'versionVariables.other: unknown key',
    ]);
  });

  it('lets a deployment name the service of every role, and only of artifacts the config has', () => {
    const artifacts = {
      api: { image: 'app' },
      worker: { image: 'app', command: ['app', 'work'] },
      scheduler: { role: 'worker', image: 'app', command: ['app', 'cron'] },
    };
    const services = { api: 'acme_api', worker: 'acme_worker', scheduler: 'acme_cron' };
    const config = validateConfig(
      { artifacts, deployments: [{ name: 'prod', url: 'https://acme.example', services }] },
      'x',
    );
    expect(config.deployments[0]!.services).toEqual(services);
    expect(
      problems({
        artifacts,
        deployments: [{ name: 'prod', url: 'https://acme.example', services: { ...services, cron: 'x' } }],
      }),
    ).toEqual(['deployments.0.services.cron: expected api, worker, web or the name of an image artifact']);
  });
});
