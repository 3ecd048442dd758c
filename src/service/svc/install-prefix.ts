import { realpathSync } from 'node:fs';
import { dirname, sep } from 'node:path';

/** The real path of the running svc script (its bin link resolved), or undefined. */
export function runningScript(argv1: string | undefined = process.argv[1]): string | undefined {
  if (!argv1) return undefined;
  try {
    return realpathSync(argv1);
  } catch {
    return undefined;
  }
}

/**
 * The npm prefix a running svc was installed into: `npm install -g` puts the package at
 * `<prefix>/lib/node_modules/service-cli/` and links `<prefix>/bin/svc` to its script. Undefined
 * when svc does not run from such a place (a checkout, a hand-copied file).
 */
export function installPrefixOf(script: string | undefined): string | undefined {
  if (!script) return undefined;
  const packageDir = dirname(script);
  const tail = `${sep}lib${sep}node_modules${sep}service-cli`;
  return packageDir.endsWith(tail) ? packageDir.slice(0, -tail.length) || sep : undefined;
}
