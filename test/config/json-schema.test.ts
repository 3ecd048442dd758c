import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config/json-schema.ts';
import { validateConfig } from '../../src/config/validate.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The schema the package ships (scripts/build.mjs writes it from the same function), checked by a
// standard validator: every fixture config passes it, and on a table of invalid configs it
// refuses what the loader refuses.
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const check = ajv.compile(configJsonSchema());

function loaderAccepts(config: unknown): boolean {
  try {
    validateConfig(config, 'test');
    return true;
  } catch {
    return false;
  }
}

function fixtureConfigs(): [string, unknown][] {
  const found: [string, unknown][] = [];
  for (const project of ['acme-docker', 'acme-oci']) {
    const path = join(ROOT, 'fixtures', project, 'release.config.json');
    found.push([`fixtures/${project}/release.config.json`, JSON.parse(readFileSync(path, 'utf8'))]);
  }
  for (const name of readdirSync(join(ROOT, 'fixtures/configs')).filter((n) => n.endsWith('.json'))) {
    if (name === 'invalid.json') continue;
    const path = join(ROOT, 'fixtures/configs', name);
    found.push([`fixtures/configs/${name}`, JSON.parse(readFileSync(path, 'utf8'))]);
  }
  return found;
}

const INVALID: [string, unknown][] = [
  ['an unknown top-level key', { colour: 'blue' }],
  ['a registry that is not one', { registry: 'not a registry' }],
  ['an empty oci-layout', { registry: 'oci-layout:' }],
  ['a record that is empty', { record: '' }],
  ['insecureRegistries not an array', { insecureRegistries: 'localhost:5000' }],
  ['a deployment without a url', { deployments: [{ name: 'prod' }] }],
  ['a deployment url that is not a URL', { deployments: [{ name: 'prod', url: 'svc.example.com' }] }],
  ['a deployment with an unknown key', { deployments: [{ name: 'p', url: 'https://x.test', region: 'eu' }] }],
  ['an artifact name with capitals', { artifacts: { Scheduler: { image: 'x' } } }],
  ['an image name with capitals', { artifacts: { api: { image: 'Bad Name' } } }],
  ['a misspelt artifact key', { artifacts: { api: { dockerFile: 'api/Dockerfile' } } }],
  ['an absolute files[].from', { artifacts: { api: { files: [{ from: '/etc', to: '/etc' }] } } }],
  ['a relative files[].to', { artifacts: { api: { files: [{ from: 'x', to: 'etc' }] } } }],
  ['a build command as a string', { artifacts: { api: { build: { command: 'sh build.sh' } } } }],
  ['an empty build command', { artifacts: { api: { build: { command: [] } } } }],
  ['a cli build without its archive', { artifacts: { cli: { build: { command: ['sh', 'b.sh'] } } } }],
  ['a cli with an image key', { artifacts: { cli: { image: 'svc' } } }],
  ['a role that does not exist', { artifacts: { api: { role: 'db' } } }],
  ['an exposed port that is a word', { artifacts: { api: { exposedPorts: ['http'] } } }],
  ['an environment name with a dash', { artifacts: { api: { env: { 'MY-VAR': '1' } } } }],
  ['minCliVersion with a v', { api: { minCliVersion: 'v1.0.0' } }],
  ['signing with an unknown key', { signing: { key: 'k.pem' } }],
  ['publish as a string', { artifacts: { cli: { publish: 'yes' } } }],
  ['a version variable with a dash', { versionVariables: { server: ['ACME-VERSION'] } }],
  ['a version variable that is not a list', { versionVariables: { client: 'VITE_V' } }],
  ['an unknown versionVariables key', { versionVariables: { worker: ['A'] } }],
  ['a role command as a string', { artifacts: { worker: { image: 'app', command: 'celery worker' } } }],
  ['a CLI bin with a path', { artifacts: { cli: { bin: 'bin/acme' } } }],
];

describe('config.schema.json', () => {
  it.each(fixtureConfigs())('accepts %s, as the loader does', (_name, config) => {
    expect(check(config), JSON.stringify(check.errors)).toBe(true);
    expect(loaderAccepts(config)).toBe(true);
  });

  it('accepts the $schema line release init --format json writes, as the loader does', () => {
    const config = {
      $schema: './node_modules/service-release/config.schema.json',
      registry: 'localhost:5000/a',
    };
    expect(check(config)).toBe(true);
    expect(loaderAccepts(config)).toBe(true);
  });

  it.each(INVALID)('refuses %s, as the loader does', (_name, config) => {
    expect(loaderAccepts(config)).toBe(false);
    expect(check(config)).toBe(false);
  });

  it('is the file the build ships', () => {
    const shipped = JSON.parse(readFileSync(join(ROOT, 'config.schema.json'), 'utf8'));
    expect(shipped).toEqual(configJsonSchema());
  });
});
