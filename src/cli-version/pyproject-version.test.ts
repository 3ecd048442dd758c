import { describe, expect, it } from 'vitest';
import { HATCH_DEFAULT_PATTERN, pyprojectVersion, versionInText } from './pyproject-version.ts';

// Shapes met in the pyproject.toml of real self-hosted services' Python CLIs (their shapes only),
// and the backends' documented places for a dynamic version.
const shapes: [string, string, unknown][] = [
  [
    'PEP 621, a dev release (uv_build backend)',
    '[project]\nname = "tool"\nversion = "1.24.0.dev0"\n[project.scripts]\ntool = "tool.server:main"\n[build-system]\nbuild-backend = "uv_build"\n',
    { kind: 'static', version: '1.24.0.dev0', from: '[project].version' },
  ],
  [
    'PEP 621 beside a bump tool that keeps its own v-spelled copy (pdm backend)',
    '[project]\nname = "tool"\nversion = "0.9.35rc628"\n[tool.bumpver]\ncurrent_version = "v0.9.35rc628"\n[build-system]\nbuild-backend = "pdm.backend"\n',
    { kind: 'static', version: '0.9.35rc628', from: '[project].version' },
  ],
  [
    'poetry 1: [tool.poetry] only',
    '[tool.poetry]\nname = "tool"\nversion = "2.3.1"\n[build-system]\nbuild-backend = "poetry.core.masonry.api"\n',
    { kind: 'static', version: '2.3.1', from: '[tool.poetry].version' },
  ],
  [
    'poetry 2: [project] with a dynamic version kept in [tool.poetry]',
    '[project]\nname = "tool"\ndynamic = ["version"]\n[tool.poetry]\nversion = "2.3.1"\n',
    { kind: 'static', version: '2.3.1', from: '[tool.poetry].version' },
  ],
  [
    '[project].version wins over [tool.poetry].version',
    '[project]\nname = "tool"\nversion = "3.0.0"\n[tool.poetry]\nversion = "2.0.0"\n',
    { kind: 'static', version: '3.0.0', from: '[project].version' },
  ],
  [
    'hatch reading a package.json with its own pattern',
    `[project]\nname = "tool"\ndynamic = ["version"]\n[tool.hatch.version]\npath = "package.json"\npattern = '"version":\\s*"(?P<version>[^"]+)"'\n`,
    {
      kind: 'file',
      path: 'package.json',
      read: { pattern: String.raw`"version":\s*"(?P<version>[^"]+)"` },
      from: '[tool.hatch.version] path "package.json"',
    },
  ],
  [
    'hatch with its default pattern',
    '[project]\nname = "tool"\ndynamic = ["version"]\n[tool.hatch.version]\npath = "src/tool/__about__.py"\n',
    {
      kind: 'file',
      path: 'src/tool/__about__.py',
      read: { pattern: HATCH_DEFAULT_PATTERN },
      from: '[tool.hatch.version] path "src/tool/__about__.py"',
    },
  ],
  [
    'setuptools attr on a package',
    '[project]\nname = "Tool"\ndynamic = ["version"]\n[tool.setuptools.dynamic]\nversion = {attr = "tool.__version__"}\n',
    {
      kind: 'attr',
      module: 'tool',
      attribute: '__version__',
      packageDirs: {},
      from: '[tool.setuptools.dynamic].version attr "tool.__version__"',
    },
  ],
  [
    'setuptools attr with a package-dir',
    '[project]\nname = "tool"\ndynamic = ["version"]\n[tool.setuptools]\npackage-dir = {"" = "lib"}\n[tool.setuptools.dynamic]\nversion = {attr = "tool.version.VERSION"}\n',
    {
      kind: 'attr',
      module: 'tool.version',
      attribute: 'VERSION',
      packageDirs: { '': 'lib' },
      from: '[tool.setuptools.dynamic].version attr "tool.version.VERSION"',
    },
  ],
  [
    'setuptools file',
    '[project]\nname = "tool"\ndynamic = ["version"]\n[tool.setuptools.dynamic]\nversion = {file = ["VERSION"]}\n',
    {
      kind: 'file',
      path: 'VERSION',
      read: { whole: true },
      from: '[tool.setuptools.dynamic].version file "VERSION"',
    },
  ],
  [
    'pdm file',
    '[project]\nname = "tool"\ndynamic = ["version"]\n[tool.pdm.version]\nsource = "file"\npath = "tool/__init__.py"\n',
    {
      kind: 'file',
      path: 'tool/__init__.py',
      read: { assignment: '__version__' },
      from: '[tool.pdm.version] path "tool/__init__.py"',
    },
  ],
  [
    'flit: the module __version__',
    '[project]\nname = "acme-tool"\ndynamic = ["version", "description"]\n[build-system]\nbuild-backend = "flit_core.buildapi"\n',
    {
      kind: 'attr',
      module: 'acme_tool',
      attribute: '__version__',
      packageDirs: {},
      from: 'flit: acme_tool.__version__',
    },
  ],
];

const unreadable: [string, string, RegExp][] = [
  [
    'poetry-dynamic-versioning: a placeholder',
    '[tool.poetry]\nname = "tool"\nversion = "0.0.0"\n[tool.poetry-dynamic-versioning]\nenable = true\n',
    /poetry-dynamic-versioning is enabled: the version is made from git tags.*\(0\.0\.0\) is a placeholder/,
  ],
  [
    'setuptools_scm',
    '[project]\nname = "tool"\ndynamic = ["version"]\n[tool.setuptools_scm]\n',
    /setuptools_scm makes it: the version is made from git tags/,
  ],
  [
    'hatch-vcs',
    '[project]\nname = "tool"\ndynamic = ["version"]\n[tool.hatch.version]\nsource = "vcs"\n',
    /source "vcs": the version is made from git tags/,
  ],
  [
    'pdm scm',
    '[project]\nname = "t"\ndynamic = ["version"]\n[tool.pdm.version]\nsource = "scm"\n',
    /source "scm"/,
  ],
  [
    'a dynamic version no backend setting names',
    '[project]\nname = "t"\ndynamic = ["version"]\n[build-system]\nbuild-backend = "maturin"\n',
    /dynamic and its backend \(maturin\)/,
  ],
  ['no version at all', '[project]\nname = "tool"\n', /declares no version/],
  ['no [project] and no poetry', '[tool.black]\nline-length = 100\n', /declares no version/],
  ['not TOML', '[project\nname = "tool"\n', /not valid TOML/],
  ['a version that is not a string', '[project]\nname = "t"\nversion = 1\n', /not a string/],
];

describe('pyprojectVersion: where a pyproject says its version is', () => {
  it.each(shapes)('%s', (_, text, expected) => expect(pyprojectVersion(text)).toEqual(expected));
  it.each(unreadable)('%s: unreadable, saying why', (_, text, why) => {
    const found = pyprojectVersion(text);
    expect(found.kind).toBe('unreadable');
    expect((found as { why: string }).why).toMatch(why);
  });
});

describe('versionInText: the version in a version file', () => {
  it.each([
    [
      'a package.json with hatch-style pattern',
      '{\n  "name": "x",\n  "version": "0.6.41"\n}\n',
      { pattern: String.raw`"version":\s*"(?P<version>[^"]+)"` },
      '0.6.41',
    ],
    ['hatch default, VERSION with a v', "VERSION = 'v1.2.3'\n", { pattern: HATCH_DEFAULT_PATTERN }, '1.2.3'],
    [
      'hatch default, case-insensitive (?i)',
      '__VERSION__ = "1.2.3"\n',
      { pattern: HATCH_DEFAULT_PATTERN },
      '1.2.3',
    ],
    [
      'an assignment among other lines',
      '"""doc"""\nimport sys\n__version__ = "4.4.0_dev5"\n__author__ = "x"\n',
      { assignment: '__version__' },
      '4.4.0_dev5',
    ],
    [
      'an annotated assignment',
      '__version__: str = "1.0.0"  # bumped by CI\n',
      { assignment: '__version__' },
      '1.0.0',
    ],
    ['a whole file', '1.4.2\n', { whole: true }, '1.4.2'],
  ] as const)('%s', (_, text, read, version) => expect(versionInText(text, read)).toBe(version));

  it.each([
    ['a computed version', '__version__ = get_version()\n', { assignment: '__version__' }],
    ['an imported version', 'from ._version import version as __version__\n', { assignment: '__version__' }],
    ['a file of two lines', '1.4.2\n1.4.3\n', { whole: true }],
    ['a pattern that matches nothing', 'nothing here', { pattern: HATCH_DEFAULT_PATTERN }],
    ['a pattern JavaScript cannot read', 'x', { pattern: '(?P<version>' }],
  ] as const)('%s: undefined', (_, text, read) => expect(versionInText(text, read)).toBeUndefined());
});
