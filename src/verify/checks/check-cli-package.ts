import { compareVersionStrings } from '../../version/compare.ts';
import { parseVersion } from '../../version/parse.ts';
import type { CliPackageReading } from '../probes/cli-package.ts';
import type { Finding } from '../types.ts';

/**
 * The operator CLI is installed "as package service-cli pinned to that version" (spec section 9,
 * item 4): the deployment's version must be in the registry, and for a release `latest` should
 * name it, unless a higher release is out (then it is a backport, which is worth knowing).
 */
export function checkCliPackage(r: CliPackageReading): Finding[] {
  const ref = `${r.package}@${r.version}`;
  if (r.exists === undefined) {
    return [
      {
        code: 'CLI_PACKAGE_UNREADABLE',
        message: `cli: could not read ${r.package} from the npm registry: ${r.error ?? 'no answer'}`,
        fix: 'check npm config get registry (the .npmrc beside the config, NPM_CONFIG_REGISTRY)',
        severity: 'unreachable',
        artifact: 'cli',
      },
    ];
  }
  if (!r.exists) {
    return [
      {
        code: 'CLI_PACKAGE_MISSING',
        message: `cli: ${ref} is not in ${r.registry}, so the CLI cannot be installed pinned to this deployment's version`,
        fix: `release promote with artifacts.cli.publish on publishes it (npm install -g ${ref} then works)`,
        severity: 'drift',
        artifact: 'cli',
      },
    ];
  }
  if (parseVersion(r.version).kind !== 'release') return [];
  const latest = r.distTags['latest'];
  if (latest === r.version) return [];
  const higher =
    latest !== undefined &&
    parseVersion(latest).kind === 'release' &&
    compareVersionStrings(latest, r.version) > 0;
  return [
    higher
      ? {
          code: 'CLI_PACKAGE_LATEST_NEWER',
          message: `cli: the latest dist-tag of ${r.package} is ${latest}, newer than this deployment's ${r.version} (a backport or an older deployment)`,
          fix: `pin the CLI: npm install -g ${ref}`,
          severity: 'notice',
          artifact: 'cli',
        }
      : {
          code: 'CLI_PACKAGE_LATEST_BEHIND',
          message: `cli: the latest dist-tag of ${r.package} is ${latest ?? '(none)'}, not this release ${r.version}: npm install -g ${r.package} gives another CLI`,
          fix: `npm dist-tag add ${ref} latest (or promote ${r.version} to release again)`,
          severity: 'drift',
          artifact: 'cli',
        },
  ];
}
