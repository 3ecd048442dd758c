/**
 * `service-release/version-handler`: the version endpoint alone, for a service that embeds it.
 * Loads nothing but the handler and what it needs (node:http types, version parsing), never the
 * release tooling behind the package root.
 */
export { MIN_CLI_VERSION } from '../service/api/min-cli-version.ts';
export {
  createVersionHandler,
  type NextFunction,
  type RequestHandler,
  VERSION_PATH,
  type VersionHandlerOptions,
} from '../service/api/version-handler.ts';
