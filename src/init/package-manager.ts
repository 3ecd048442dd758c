/**
 * The package manager a repository installs with, read from its lockfile and the `packageManager`
 * field of its package.json (corepack's), so the CI init writes installs as the team does: never
 * `npm ci` in a pnpm or yarn workspace (an `only-allow pnpm` preinstall refuses npm; npm reads
 * neither `workspace:` ranges nor another manager's lockfile). Pure.
 */
export type PackageManagerName = 'npm' | 'pnpm' | 'yarn';

export interface PackageManager {
  name: PackageManagerName;
  /** Yarn 2 and later (berry): `--immutable`, and corepack to get it. */
  berry: boolean;
  /** The `packageManager` field as written (`pnpm@9.12.0+sha512...`), when it names this manager. */
  pinned?: string;
  /** pnpm's major when nothing pins it: from the lockfile's version. */
  major?: number;
  /** The lockfile the install is frozen to, when there is one. */
  lockfile?: string;
  /** Where the choice came from, for the report. */
  from: string;
}

const LOCKFILES: [string, PackageManagerName][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];
const FIELD = /^(npm|pnpm|yarn)@(\d+)(?:[.\w+-]*)$/;

export function packageManager(read: (path: string) => string | undefined): PackageManager {
  const field = packageManagerField(read('package.json'));
  const lock = LOCKFILES.find(([path]) => read(path) !== undefined);
  const name: PackageManagerName = field?.name ?? lock?.[1] ?? 'npm';
  const lockfile = LOCKFILES.find(([path, manager]) => manager === name && read(path) !== undefined)?.[0];
  const from = field
    ? `package.json packageManager "${field.raw}"`
    : lockfile
      ? lockfile
      : 'no lockfile: npm';
  const manager: PackageManager = { name, berry: false, from, ...(lockfile ? { lockfile } : {}) };
  if (field) manager.pinned = field.raw;
  if (name === 'yarn')
    manager.berry = field
      ? field.major >= 2
      : read('.yarnrc.yml') !== undefined || /^__metadata:/m.test(read('yarn.lock') ?? '');
  if (name === 'pnpm' && !field) {
    const major = pnpmMajorOfLockfile(read('pnpm-lock.yaml'));
    if (major) manager.major = major;
  }
  return manager;
}

function packageManagerField(
  text: string | undefined,
): { name: PackageManagerName; major: number; raw: string } | undefined {
  try {
    const value = (JSON.parse(text ?? '') as { packageManager?: unknown }).packageManager;
    if (typeof value !== 'string' || value.length > 200) return undefined;
    const match = FIELD.exec(value);
    return match ? { name: match[1] as PackageManagerName, major: Number(match[2]), raw: value } : undefined;
  } catch {
    return undefined;
  }
}

// lockfileVersion 9.0 is written by pnpm 9 and 10, 6.x by pnpm 8, 5.4 by pnpm 7.
function pnpmMajorOfLockfile(text: string | undefined): number | undefined {
  const match = /^lockfileVersion:\s*['"]?(\d+)(?:\.(\d+))?/m.exec(text?.slice(0, 200) ?? '');
  if (!match) return undefined;
  const major = Number(match[1]);
  return major >= 9 ? 10 : major >= 6 ? 8 : 7;
}

/** How the repository installs its dependencies in CI, as it locked them. */
export function installCommand(manager: PackageManager): string {
  if (manager.name === 'pnpm') return manager.lockfile ? 'pnpm install --frozen-lockfile' : 'pnpm install';
  if (manager.name === 'yarn')
    return manager.berry
      ? manager.lockfile
        ? 'yarn install --immutable'
        : 'yarn install'
      : manager.lockfile
        ? 'yarn install --frozen-lockfile'
        : 'yarn install';
  return manager.lockfile ? 'npm ci' : 'npm install';
}

/** How a bin of the project's dependencies runs: `npx release`, `pnpm exec release`, `yarn exec release`. */
export function execCommand(manager: PackageManager, bin: string): string {
  return manager.name === 'npm' ? `npx ${bin}` : `${manager.name} exec ${bin}`;
}

/** How a development dependency is added at the top of a workspace, with this manager. */
export function addDevCommand(manager: PackageManager, packages: readonly string[]): string {
  const list = packages.join(' ');
  if (manager.name === 'pnpm') return `pnpm add -D -w ${list}`;
  if (manager.name === 'yarn') return manager.berry ? `yarn add -D ${list}` : `yarn add -D -W ${list}`;
  return `npm install -D ${list}`;
}
