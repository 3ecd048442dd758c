/**
 * `service-release/version`: reading and comparing versions (parse, compare, `satisfiesMinimum`)
 * and resolving a service's own (`SERVICE_VERSION`, else `git describe`), without the release
 * tooling behind the package root.
 */

export * from '../version/index.ts';
export {
  type ResolvedVersion,
  type ResolveOptions,
  resolveVersion,
  type VersionSource,
} from '../version-source/resolve-version.ts';
