/**
 * The API's answer to "is the CLI published to npm?": `/api/version` carries this header with the
 * package name when the API runs with SERVICE_CLI_PACKAGE set (with publishing on, the api
 * artifact's `env` in the config). The version document itself keeps exactly its two fields.
 */
export const CLI_PACKAGE_HEADER = 'X-Service-Cli-Package';

/** npm package names only: anything else from a server is ignored. */
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]{0,213}$/;

export function cliPackageName(value: string | string[] | undefined): string | undefined {
  const name = (Array.isArray(value) ? value[0] : value)?.trim();
  return name && NPM_NAME.test(name) ? name : undefined;
}
