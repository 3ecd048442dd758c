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
        api: { kind: 'image', name: 'api', role: 'api', image: 'service-api', base },
        worker: { kind: 'image', name: 'worker', role: 'worker', image: 'service-worker', base },
        web: { kind: 'image', name: 'web', role: 'web', image: 'service-web', base },
        cli: {
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
