import { describe, expect, it } from 'vitest';
import { cliInstall, type FixContext } from './fixes.ts';
import { ownWords } from './probes/cli.ts';

const base: FixContext = {
  apiUrl: 'https://acme.example.com/',
  images: { api: 'acme', worker: 'acme', web: 'acme-web' },
  tag: 'v2.1.0',
};
const cli = {
  program: 'acme',
  installCommand: 'pipx install --force {url}',
  archiveName: 'acme-2.1.0.tar.gz',
};

describe('cliInstall: from where the config says the CLI is', () => {
  it('the reference service: its API serves the archive', () => {
    expect(cliInstall(base)).toBe(
      'npm install -g https://acme.example.com/api/cli/download/service-cli.tar.gz',
    );
  });
  it('a CLI the API serves: the install command on its download URL', () => {
    expect(cliInstall({ ...base, naming: { cli: { ...cli, served: true } } })).toBe(
      'pipx install --force https://acme.example.com/api/cli/download/acme-2.1.0.tar.gz',
    );
  });
  it('a CLI published to npm: that package at the version', () => {
    const naming = { cli: { ...cli, package: '@acme/cli', published: true } };
    expect(cliInstall({ ...base, naming })).toBe('npm install -g @acme/cli@2.1.0');
    expect(cliInstall({ ...base, naming: { cli: { ...naming.cli, ownLine: true } } })).toBe(
      'npm install -g @acme/cli',
    );
  });
  it('neither: the install command on the release archive, no endpoint made up', () => {
    const fix = cliInstall({ ...base, naming: { cli } });
    expect(fix).toBe('pipx install --force <acme-2.1.0.tar.gz of v2.1.0>');
    expect(fix).not.toContain('/api/cli/download');
  });
});

describe('ownWords: what a failing CLI said, for its row', () => {
  it("keeps Node's error and its last line, not the stack", () => {
    const stderr = [
      'file:///usr/lib/node_modules/@acme/cli/dist/cli.js:1',
      "import { DatabaseSync } from 'node:sqlite';",
      '         ^^^^^^^^^^^^',
      "SyntaxError: The requested module 'node:sqlite' does not provide an export named 'DatabaseSync'",
      '    at ModuleJob._instantiate (node:internal/modules/esm/module_job:180:21)',
      '',
      'Node.js v20.19.0',
    ].join('\n');
    expect(ownWords(stderr, {})).toBe(
      "SyntaxError: The requested module 'node:sqlite' does not provide an export named 'DatabaseSync' | Node.js v20.19.0",
    );
  });
  it("keeps Python's last line, masks secret-looking variables, bounds the length", () => {
    const stderr =
      'Traceback (most recent call last):\n  File "/x.py", line 3, in <module>\nRuntimeError: bad token abcd-1234-efgh';
    expect(ownWords(stderr, { ACME_API_TOKEN: 'abcd-1234-efgh', HOME: '/root' })).toBe(
      'RuntimeError: bad token ***',
    );
    expect(ownWords(`Error: ${'x'.repeat(500)}`, {}).length).toBeLessThanOrEqual(201);
    expect(ownWords('', {})).toBe('');
  });
});
