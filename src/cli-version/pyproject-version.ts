import { parse } from 'smol-toml';

/**
 * Where a pyproject.toml says its version is, read from its text alone (pure; the files it names
 * are read by read-own-version.ts):
 *
 * - `static`: `[project].version` (PEP 621), else `[tool.poetry].version`;
 * - `file`: a file the build backend reads it from (setuptools `file:`, hatch `path` with its
 *   `pattern`, pdm `source = "file"`), with how to read it;
 * - `attr`: a module attribute (setuptools `attr: pkg.__version__`, flit's `__version__`);
 * - `unreadable`: why it cannot be known before the build (no version at all, a version made from
 *   git tags by setuptools_scm, hatch-vcs, pdm scm or poetry-dynamic-versioning, a backend we do
 *   not read). Never a guess.
 */
export type PyprojectVersion =
  | { kind: 'static'; version: string; from: string }
  | { kind: 'file'; path: string; read: VersionRead; from: string }
  | { kind: 'attr'; module: string; attribute: string; packageDirs: Record<string, string>; from: string }
  | { kind: 'unreadable'; why: string };

/** How a version file is read: all its text, a Python assignment, or a regex with a `version` group. */
export type VersionRead = { whole: true } | { assignment: string } | { pattern: string };

type Table = Record<string, unknown>;
const table = (value: unknown): Table | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Table) : undefined;
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

// Hatch's default: `__version__ = "1.2.3"` or `VERSION = "1.2.3"`, a leading v dropped.
export const HATCH_DEFAULT_PATTERN = String.raw`(?i)^(__version__|VERSION) *= *(['"])v?(?P<version>.+?)\2`;
const FROM_GIT = 'made from git tags when the package is built';

export function pyprojectVersion(source: string): PyprojectVersion {
  let doc: Table;
  try {
    doc = parse(source) as Table;
  } catch (error) {
    const first = String((error as Error).message).split('\n')[0];
    return { kind: 'unreadable', why: `it is not valid TOML (${first})` };
  }
  const project = table(doc['project']);
  const tool = table(doc['tool']) ?? {};
  const poetry = table(tool['poetry']);
  const dynamic =
    Array.isArray(project?.['dynamic']) && (project['dynamic'] as unknown[]).includes('version');

  const pdv = table(tool['poetry-dynamic-versioning']);
  if (pdv?.['enable'] === true)
    return {
      kind: 'unreadable',
      why: `poetry-dynamic-versioning is enabled: the version is ${FROM_GIT}, [tool.poetry].version (${text(poetry?.['version']) ?? 'unset'}) is a placeholder`,
    };
  if (!dynamic) {
    const declared = text(project?.['version']);
    if (declared) return { kind: 'static', version: declared, from: '[project].version' };
    if (project?.['version'] !== undefined)
      return { kind: 'unreadable', why: '[project].version is not a string' };
    const poetryVersion = text(poetry?.['version']);
    if (poetryVersion) return { kind: 'static', version: poetryVersion, from: '[tool.poetry].version' };
    return {
      kind: 'unreadable',
      why: project
        ? 'it declares no version: [project] has no version and does not list it in dynamic'
        : 'it declares no version: no [project].version and no [tool.poetry].version',
    };
  }
  return dynamicVersion(tool, project, poetry, doc);
}

/** `dynamic = ["version"]`: the backend's own setting names where it lives. */
function dynamicVersion(
  tool: Table,
  project: Table | undefined,
  poetry: Table | undefined,
  doc: Table,
): PyprojectVersion {
  const setuptools = table(table(tool['setuptools'])?.['dynamic'])?.['version'];
  const st = table(setuptools);
  if (st) {
    const attr = text(st['attr']);
    if (attr) {
      const dot = attr.lastIndexOf('.');
      if (dot <= 0)
        return {
          kind: 'unreadable',
          why: `[tool.setuptools.dynamic].version attr "${attr}" names no module`,
        };
      const dirs = table(table(tool['setuptools'])?.['package-dir']) ?? {};
      return {
        kind: 'attr',
        module: attr.slice(0, dot),
        attribute: attr.slice(dot + 1),
        packageDirs: Object.fromEntries(
          Object.entries(dirs).filter(([, v]) => typeof v === 'string'),
        ) as Record<string, string>,
        from: `[tool.setuptools.dynamic].version attr "${attr}"`,
      };
    }
    const file = st['file'];
    const files = typeof file === 'string' ? [file] : Array.isArray(file) ? file : [];
    if (files.length === 1 && typeof files[0] === 'string')
      return {
        kind: 'file',
        path: files[0],
        read: { whole: true },
        from: `[tool.setuptools.dynamic].version file "${files[0]}"`,
      };
    return {
      kind: 'unreadable',
      why: '[tool.setuptools.dynamic].version names neither one attr nor one file',
    };
  }
  if (table(tool['setuptools_scm']) || tool['setuptools_scm'] !== undefined)
    return { kind: 'unreadable', why: `setuptools_scm makes it: the version is ${FROM_GIT}` };
  const hatch = table(table(tool['hatch'])?.['version']);
  if (hatch) {
    const source = text(hatch['source']) ?? 'regex';
    if (source !== 'regex')
      return {
        kind: 'unreadable',
        why: `[tool.hatch.version] source "${source}"${source === 'vcs' ? `: the version is ${FROM_GIT}` : ' is a plugin we do not read'}`,
      };
    const path = text(hatch['path']);
    if (!path) return { kind: 'unreadable', why: '[tool.hatch.version] has no path' };
    const pattern = typeof hatch['pattern'] === 'string' ? hatch['pattern'] : HATCH_DEFAULT_PATTERN;
    return { kind: 'file', path, read: { pattern }, from: `[tool.hatch.version] path "${path}"` };
  }
  const pdm = table(table(tool['pdm'])?.['version']);
  if (pdm) {
    const source = text(pdm['source']);
    const path = text(pdm['path']);
    if (source === 'file' && path)
      return {
        kind: 'file',
        path,
        read: { assignment: '__version__' },
        from: `[tool.pdm.version] path "${path}"`,
      };
    return {
      kind: 'unreadable',
      why: `[tool.pdm.version] source "${source ?? 'unset'}"${source === 'scm' ? `: the version is ${FROM_GIT}` : ''}`,
    };
  }
  const poetryVersion = text(poetry?.['version']);
  if (poetryVersion) return { kind: 'static', version: poetryVersion, from: '[tool.poetry].version' };
  const backend = text(table(doc['build-system'])?.['build-backend']) ?? '';
  if (backend.startsWith('flit')) {
    const name =
      text(table(table(tool['flit'])?.['module'])?.['name']) ??
      text(project?.['name'])?.replace(/[-.]/g, '_');
    if (name)
      return {
        kind: 'attr',
        module: name,
        attribute: '__version__',
        packageDirs: {},
        from: `flit: ${name}.__version__`,
      };
  }
  return {
    kind: 'unreadable',
    why: `the version is dynamic and ${backend ? `its backend (${backend})` : 'no backend'} names a place we read (setuptools attr or file, hatch path, pdm file, flit __version__)`,
  };
}

/**
 * The version in a version file's text, read as `read` says; undefined when it is not there. A
 * pattern is Python's (hatch's): `(?P<version>…)` groups and a leading `(?i)` are taken, and it
 * searches line by line as hatch does (multiline).
 */
export function versionInText(source: string, read: VersionRead): string | undefined {
  if ('whole' in read) {
    const lines = source
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.length === 1 ? lines[0] : undefined;
  }
  if ('assignment' in read) {
    const name = read.assignment.replace(/[^A-Za-z0-9_]/g, '');
    const m = new RegExp(
      String.raw`^${name}\s*(?::\s*[A-Za-z_][\w.\[\]]*\s*)?=\s*(['"])([^'"\n]+)\1\s*(?:#.*)?$`,
      'm',
    ).exec(source);
    return m?.[2]?.trim();
  }
  let pattern = read.pattern;
  let flags = 'm';
  const inline = /^\(\?([aiLmsux]+)\)/.exec(pattern);
  if (inline) {
    pattern = pattern.slice(inline[0].length);
    if (inline[1]!.includes('i')) flags += 'i';
    if (inline[1]!.includes('s')) flags += 's';
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>'), flags);
  } catch {
    return undefined;
  }
  const m = regex.exec(source);
  return (m?.groups?.['version'] ?? m?.[1])?.trim();
}
