import type { NpmClient } from '../../cli-package/npm-client.ts';
import { printable } from '../../text/printable.ts';
import { packageVersionOf } from '../../version/package-version.ts';
import type { CliPackageReading } from '../types.ts';

export type { CliPackageReading };

/** Read `name@<version of tag>` and the dist-tags with npm (npm's own config). Never throws. */
export async function probeCliPackage(options: {
  npm: NpmClient;
  name: string;
  tag: string;
}): Promise<CliPackageReading> {
  const version = packageVersionOf(options.tag);
  const base = { package: options.name, version, registry: '', distTags: {} };
  try {
    const registry = await options.npm.registry();
    const state = await options.npm.readState(options.name);
    return { ...base, registry, exists: Object.hasOwn(state.versions, version), distTags: state.distTags };
  } catch (error) {
    return { ...base, exists: undefined, error: printable((error as Error).message, { max: 300 }) };
  }
}
