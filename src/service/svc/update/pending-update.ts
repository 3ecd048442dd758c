// Imported by main.ts ahead of `--version`: node:fs and node:path only, both loaded by Node before
// any user code runs, so asking "was an update interrupted?" costs one stat(2).
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';

/**
 * Where an update keeps its state: `<prefix>/lib/node_modules/.service-cli-update/`, beside the
 * live package. The same file system as the live install, which is what makes the final renames
 * atomic; a dot name, which npm's tree reader passes over. The directory is also the update's
 * lock: it appears in one rename, with its journal already inside (see update-lock.ts).
 */
export const UPDATE_DIR_NAME = '.service-cli-update';
export const PACKAGE_NAME = 'service-cli';

/**
 * The `node_modules` folder an svc runs from, from the real directory of its script: the live
 * package (`<nm>/service-cli`) or a staged one inside an update (`<nm>/.service-cli-update/...`),
 * which is where the `bin` link points while an update switches. Undefined anywhere else (a
 * checkout, a hand-copied file): there is no install to update or recover.
 */
export function nodeModulesOf(scriptDir: string): string | undefined {
  const staged = scriptDir.indexOf(`${sep}${UPDATE_DIR_NAME}${sep}`);
  if (staged !== -1) return scriptDir.slice(0, staged);
  const live = `${sep}node_modules${sep}${PACKAGE_NAME}`;
  return scriptDir.endsWith(live) ? scriptDir.slice(0, -PACKAGE_NAME.length - 1) : undefined;
}

/** The `node_modules` folder whose update was left behind (or is running), if any. */
export function pendingUpdate(scriptDir: string): string | undefined {
  const nodeModules = nodeModulesOf(scriptDir);
  return nodeModules && existsSync(join(nodeModules, UPDATE_DIR_NAME)) ? nodeModules : undefined;
}
