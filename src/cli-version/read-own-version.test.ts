import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.ts';
import { type OwnVersionSource, readOwnVersion } from './read-own-version.ts';

// The readers on real files and real commands in a scratch project.
let dir: string;
const env = { PATH: process.env['PATH'] };
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
};
const read = (source: OwnVersionSource) => readOwnVersion(source, { cwd: dir, env });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'own-version-'));
  write('static/pyproject.toml', '[project]\nname = "acme"\nversion = "1.24.0.post1"\n');
  write('poetry/pyproject.toml', '[tool.poetry]\nname = "acme"\nversion = "2.0.0rc1"\n');
  write(
    'hatchjson/pyproject.toml',
    `[project]\nname = "acme"\ndynamic = ["version"]\n[tool.hatch.version]\npath = "package.json"\npattern = '"version":\\s*"(?P<version>[^"]+)"'\n`,
  );
  write('hatchjson/package.json', '{ "name": "acme-web", "version": "0.6.41" }\n');
  write(
    'attrpkg/pyproject.toml',
    '[project]\nname = "acme"\ndynamic = ["version"]\n[tool.setuptools.dynamic]\nversion = {attr = "acme.__version__"}\n',
  );
  write('attrpkg/acme/__init__.py', 'import sys\n__version__ = "4.4.0_dev5"\n');
  write(
    'attrsrc/pyproject.toml',
    '[project]\nname = "acme"\ndynamic = ["version"]\n[tool.setuptools.dynamic]\nversion = {attr = "acme.about.VERSION"}\n',
  );
  write('attrsrc/src/acme/about.py', 'VERSION = "3.1.0"\n');
  write(
    'computed/pyproject.toml',
    '[project]\nname = "acme"\ndynamic = ["version"]\n[tool.setuptools.dynamic]\nversion = {attr = "acme.__version__"}\n',
  );
  write(
    'computed/acme/__init__.py',
    'from importlib.metadata import version\n__version__ = version("acme")\n',
  );
  write(
    'missingmodule/pyproject.toml',
    '[project]\nname = "acme"\ndynamic = ["version"]\n[tool.setuptools.dynamic]\nversion = {attr = "gone.__version__"}\n',
  );
  write('scm/pyproject.toml', '[project]\nname = "acme"\ndynamic = ["version"]\n[tool.setuptools_scm]\n');
  write('none/pyproject.toml', '[project]\nname = "acme"\n');
  write('badpep/pyproject.toml', '[project]\nname = "acme"\nversion = "1.0.0-dev.2.gabc1234"\n');
  write('cli/VERSION', 'v0.8.2\n');
  write('cli/Cargo.toml', '[package]\nname = "acme"\nversion = "2.45.0"\n');
  write('cli/version.py', '__version__ = "0.3.0"\n');
  write('cli/meta.json', '{"version": "1.2.3-rc.4"}');
  write('cli/BAD', 'latest\n');
  write('cli/short.py', '__version__ = "0.3"\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readOwnVersion: the version a CLI declares', () => {
  it.each([
    [
      { pyproject: 'static/pyproject.toml' },
      '1.24.0.post1',
      'static/pyproject.toml [project].version',
      'pep440',
    ],
    [
      { pyproject: 'poetry/pyproject.toml' },
      '2.0.0rc1',
      'poetry/pyproject.toml [tool.poetry].version',
      'pep440',
    ],
    [
      { pyproject: 'hatchjson/pyproject.toml' },
      '0.6.41',
      'hatchjson/package.json ([tool.hatch.version] path "package.json" in hatchjson/pyproject.toml)',
      'pep440',
    ],
    [{ pyproject: 'attrpkg/pyproject.toml' }, '4.4.0_dev5', 'attrpkg/acme/__init__.py', 'pep440'],
    [{ pyproject: 'attrsrc/pyproject.toml' }, '3.1.0', 'attrsrc/src/acme/about.py', 'pep440'],
    [{ file: 'cli/VERSION' }, 'v0.8.2', 'cli/VERSION', 'semver'],
    [{ file: 'cli/Cargo.toml' }, '2.45.0', 'cli/Cargo.toml [package].version', 'semver'],
    [{ file: 'cli/version.py', scheme: 'pep440' }, '0.3.0', 'cli/version.py __version__', 'pep440'],
    [{ file: 'cli/meta.json' }, '1.2.3-rc.4', 'cli/meta.json "version"', 'semver'],
    [{ command: ['sh', '-c', 'echo "acme version 1.7.0"; echo "built by ci"'] }, '1.7.0', '`sh -c', 'semver'],
    [
      { command: ['sh', '-c', 'echo "acme, version 1.7.0rc2"'], scheme: 'pep440' },
      '1.7.0rc2',
      '`sh -c',
      'pep440',
    ],
  ] as const)('%j -> %s', async (source, version, from, scheme) => {
    const found = await read(source as OwnVersionSource);
    expect(found.version).toBe(version);
    expect(found.from.startsWith(from)).toBe(true);
    expect(found.scheme).toBe(scheme);
  });

  it.each([
    [
      { pyproject: 'computed/pyproject.toml' },
      'CLI_VERSION_UNREADABLE',
      /assigns __version__ no string literal/,
    ],
    [
      { pyproject: 'missingmodule/pyproject.toml' },
      'CLI_VERSION_UNREADABLE',
      /no file of module gone found \(looked for gone\/__init__\.py, gone\.py, src\/gone\/__init__\.py, src\/gone\.py\)/,
    ],
    [{ pyproject: 'scm/pyproject.toml' }, 'CLI_VERSION_UNREADABLE', /setuptools_scm makes it/],
    [{ pyproject: 'none/pyproject.toml' }, 'CLI_VERSION_UNREADABLE', /declares no version/],
    [
      { pyproject: 'absent/pyproject.toml' },
      'CLI_VERSION_UNREADABLE',
      /absent\/pyproject\.toml: the file does not exist/,
    ],
    [
      { pyproject: 'badpep/pyproject.toml' },
      'CLI_VERSION_INVALID',
      /says "1\.0\.0-dev\.2\.gabc1234", which is not a PEP 440 version/,
    ],
    [
      { file: 'cli/BAD' },
      'CLI_VERSION_INVALID',
      /cli\/BAD says "latest", which is not a semver \(X\.Y\.Z\) version/,
    ],
    [{ file: 'cli/short.py' }, 'CLI_VERSION_INVALID', /"0\.3", which is not a semver/], // PEP 440 has it, semver not
    [{ command: ['sh', '-c', 'echo oops >&2; exit 3'] }, 'CLI_VERSION_UNREADABLE', /failed \(3\): oops/],
    [{ command: ['sh', '-c', 'echo hello'] }, 'CLI_VERSION_UNREADABLE', /"hello" holds no version/],
    [{ command: ['./no-such-program'] }, 'CLI_VERSION_UNREADABLE', /failed \(ENOENT\)/],
  ] as const)('%j is refused with exit 2: %s', async (source, code, message) => {
    const error = await read(source as OwnVersionSource).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).code).toBe(code);
    expect((error as UsageError).message).toMatch(message);
    expect((error as UsageError).hint).toBeTruthy();
  });
});
