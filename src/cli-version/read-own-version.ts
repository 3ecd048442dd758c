import { execFile } from 'node:child_process';
import { open } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { UsageError } from '../errors.ts';
import { printable } from '../text/printable.ts';
import { pyprojectVersion, type VersionRead, versionInText } from './pyproject-version.ts';
import { isSchemeVersion, type VersionScheme } from './version-scheme.ts';

/**
 * Where a CLI on its own version line declares its version, as the config names it
 * (`artifacts.cli.version: { own: { … } }`): exactly one of a pyproject.toml, a file, or a
 * command whose output is the version.
 */
export interface OwnVersionSource {
  pyproject?: string;
  file?: string;
  command?: string[];
  scheme?: VersionScheme;
}

export interface OwnVersion {
  version: string;
  /** Where it was read, for messages: `cli/pyproject.toml [project].version`. */
  from: string;
  scheme: VersionScheme;
}

/** The scheme a source's versions are in: PEP 440 for a pyproject, else what the config says (semver). */
export function schemeOf(source: OwnVersionSource | undefined): VersionScheme {
  return source?.scheme ?? (source?.pyproject ? 'pep440' : 'semver');
}

const MAX_FILE = 1024 * 1024;
const MAX_OUTPUT = 64 * 1024;
const COMMAND_TIMEOUT_MS = 60_000;
const HINT =
  'name where the version is: artifacts.cli.version: { own: { file: "…" } } (a file holding it) or { own: { command: [ … ] } } (a command printing it)';

/**
 * The version the CLI declares now, read from the project (`cwd`: the config's folder). Refused
 * with exit 2 (`CLI_VERSION_UNREADABLE`) when it cannot be read, and (`CLI_VERSION_INVALID`) when
 * what is read is no version of the scheme: the toolkit never guesses a CLI's version.
 */
export async function readOwnVersion(
  source: OwnVersionSource,
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<OwnVersion> {
  const scheme = schemeOf(source);
  const found = source.pyproject
    ? await fromPyproject(source.pyproject, options.cwd)
    : source.file
      ? await fromFile(source.file, options.cwd)
      : await fromCommand(source.command ?? [], options);
  if (!isSchemeVersion(scheme, found.version))
    throw new UsageError(
      'CLI_VERSION_INVALID',
      `${found.from} says "${printable(found.version).slice(0, 80)}", which is not a ${scheme === 'pep440' ? 'PEP 440' : 'semver (X.Y.Z)'} version`,
      {
        hint:
          scheme === 'pep440'
            ? 'declare a PEP 440 version (1.4.0, 1.4.0rc1, 1.4.0.post1)'
            : 'declare an X.Y.Z version (1.4.0, 1.4.0-rc.1), or set scheme: "pep440" beside it for a Python version',
      },
    );
  return { ...found, scheme };
}

function unreadable(what: string, why: string): UsageError {
  return new UsageError('CLI_VERSION_UNREADABLE', `cannot read the CLI's own version from ${what}: ${why}`, {
    hint: HINT,
  });
}

async function readBounded(path: string, what: string): Promise<string> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw unreadable(
      what,
      error.code === 'ENOENT'
        ? 'the file does not exist'
        : `it cannot be read (${error.code ?? error.message})`,
    );
  });
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE) throw unreadable(what, `it is ${size} bytes, more than a version file holds (1 MB)`);
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function fromPyproject(pyproject: string, cwd: string): Promise<Omit<OwnVersion, 'scheme'>> {
  const path = resolve(cwd, pyproject);
  const where = pyprojectVersion(await readBounded(path, pyproject));
  const dir = dirname(path);
  const show = (file: string) => relative(cwd, resolve(dir, file)) || file;
  switch (where.kind) {
    case 'static':
      return { version: where.version, from: `${pyproject} ${where.from}` };
    case 'unreadable':
      throw unreadable(pyproject, where.why);
    case 'file': {
      const file = show(where.path);
      const version = versionInText(await readBounded(resolve(dir, where.path), file), where.read);
      if (!version) throw unreadable(`${file} (${where.from} in ${pyproject})`, describeMiss(where.read));
      return { version, from: `${file} (${where.from} in ${pyproject})` };
    }
    case 'attr': {
      for (const candidate of moduleFiles(where.module, where.packageDirs)) {
        const file = join(dir, candidate);
        const text = await readBounded(file, show(candidate)).catch(() => undefined);
        if (text === undefined) continue;
        const version = versionInText(text, { assignment: where.attribute });
        const what = `${show(candidate)} (${where.from} in ${pyproject})`;
        if (!version)
          throw unreadable(
            what,
            `it assigns ${where.attribute} no string literal (a computed version is known only once built)`,
          );
        return { version, from: what };
      }
      throw unreadable(
        pyproject,
        `${where.from}: no file of module ${where.module} found (looked for ${moduleFiles(where.module, where.packageDirs).join(', ')})`,
      );
    }
  }
}

/** The files a module may be in, as setuptools finds it: its package-dir, else the root or src/. */
function moduleFiles(module: string, packageDirs: Record<string, string>): string[] {
  const parts = module.split('.');
  const top = parts[0]!;
  const roots =
    packageDirs[top] !== undefined
      ? [{ root: packageDirs[top]!, rest: parts.slice(1) }]
      : [packageDirs[''] ?? '', ...(packageDirs[''] === undefined ? ['src'] : [])].map((root) => ({
          root,
          rest: parts,
        }));
  return roots.flatMap(({ root, rest }) => {
    const base = join(root || '.', ...rest);
    return rest.length ? [join(base, '__init__.py'), `${base}.py`] : [join(base, '__init__.py')];
  });
}

function describeMiss(read: VersionRead): string {
  if ('whole' in read) return 'it does not hold one version alone on one line';
  if ('assignment' in read) return `it assigns ${read.assignment} no string literal`;
  return `its pattern ${read.pattern} matches nothing there`;
}

/**
 * A file holding the version: a Python module's `__version__`, a JSON file's `version`, a TOML
 * file's `[package].version` (Cargo) or `[project].version`, else the file's one line (`VERSION`).
 */
async function fromFile(file: string, cwd: string): Promise<Omit<OwnVersion, 'scheme'>> {
  const text = await readBounded(resolve(cwd, file), file);
  const ext = extname(file).toLowerCase();
  let version: string | undefined;
  let from = file;
  if (ext === '.py') {
    version = versionInText(text, { assignment: '__version__' });
    from = `${file} __version__`;
  } else if (ext === '.json') {
    try {
      const value = (JSON.parse(text) as { version?: unknown }).version;
      version = typeof value === 'string' ? value.trim() : undefined;
    } catch {
      throw unreadable(file, 'it is not valid JSON');
    }
    from = `${file} "version"`;
  } else if (ext === '.toml') {
    let doc: Record<string, Record<string, unknown> | undefined>;
    try {
      doc = parse(text) as typeof doc;
    } catch {
      throw unreadable(file, 'it is not valid TOML');
    }
    const [key, value] = (['package', 'project'] as const)
      .map((k) => [k, doc[k]?.['version']] as const)
      .find(([, v]) => typeof v === 'string') ?? ['package', undefined];
    version = typeof value === 'string' ? value.trim() : undefined;
    from = `${file} [${key}].version`;
  } else version = versionInText(text, { whole: true });
  if (!version) throw unreadable(from, 'no version is there');
  return { version, from };
}

/** A command printing the version: the last word of its first line that starts like one. */
async function fromCommand(
  command: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<Omit<OwnVersion, 'scheme'>> {
  const shown = command.join(' ');
  const [program, ...args] = command;
  if (!program) throw unreadable('an empty command', 'nothing to run');
  const output = await new Promise<string>((done, fail) => {
    execFile(
      program,
      args,
      {
        cwd: options.cwd,
        env: options.env as NodeJS.ProcessEnv,
        timeout: COMMAND_TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT,
      },
      (error, stdout, stderr) => {
        if (error) {
          const said = printable(
            String(stderr || stdout || error.message)
              .trim()
              .split('\n')
              .slice(-3)
              .join(' '),
          ).slice(0, 300);
          fail(
            unreadable(
              `\`${shown}\``,
              `it failed (${error.code ?? error.signal ?? 'error'})${said ? `: ${said}` : ''}`,
            ),
          );
        } else done(String(stdout));
      },
    );
  });
  const first =
    output
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const words = first.split(/[\s,]+/).filter((w) => /^v?\d/.test(w));
  const version = words.at(-1);
  if (!version)
    throw unreadable(`\`${shown}\``, `its output "${printable(first).slice(0, 80)}" holds no version`);
  return { version, from: `\`${shown}\`` };
}
