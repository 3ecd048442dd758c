/** The `<meta>` in index.html that carries the client's version (build/version-plugin.ts writes it). */
const META_NAME = 'service-client-version';

/**
 * This client's own version, read at run time from `<meta name="service-client-version">` of the
 * page that loaded it; `unknown` when absent. Not baked into the bundle: index.html and
 * version.json are the only built files with the version in them, so a full release re-stamped
 * from an rc changes those two files and ships the rc's scripts byte for byte.
 */
export const CLIENT_VERSION: string = readClientVersion();

function readClientVersion(): string {
  const content = document.querySelector(`meta[name="${META_NAME}"]`)?.getAttribute('content')?.trim();
  return content && content.length <= 128 ? content : 'unknown';
}
