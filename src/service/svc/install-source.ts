import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { installPrefixOf } from './install-prefix.ts';

/** How the running svc got here. */
export interface InstallSource {
  kind: 'registry' | 'archive' | 'unknown';
  /** The sentence for `svc doctor`. */
  text: string;
}

/**
 * npm keeps no record of where a global package came from, and the code is the same either way;
 * the copy `release promote` publishes to the npm registry carries `serviceCliDistribution:
 * "npm-registry"` in its package.json (cli-package/restamp-archive.ts REGISTRY_MARK). Without it,
 * svc came from a CLI archive: the API's download (`svc update`) or a file.
 */
export function installSourceOf(script: string | undefined): InstallSource {
  if (!script || installPrefixOf(script) === undefined)
    return { kind: 'unknown', text: 'not installed by npm install -g (a checkout or a copied file)' };
  let manifest: { name?: unknown; version?: unknown; serviceCliDistribution?: unknown } = {};
  try {
    manifest = JSON.parse(readFileSync(join(dirname(script), 'package.json'), 'utf8'));
  } catch {
    return { kind: 'unknown', text: 'installed without a readable package.json' };
  }
  if (manifest.serviceCliDistribution === 'npm-registry')
    return {
      kind: 'registry',
      text: `installed from the npm registry (package ${String(manifest.name)}@${String(manifest.version)})`,
    };
  return {
    kind: 'archive',
    text: "installed from a CLI archive (the API's download, svc update, or a file)",
  };
}
