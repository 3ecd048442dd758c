import { sameTag } from '../../../version/compare.ts';

/** Longest server version we accept; anything longer is not a version document we trust. */
const MAX_LENGTH = 128;

/**
 * Whether the server runs another version than this client, so a reload would bring the user in
 * step. Tags compare as `sameTag` does (`v1.2.3` is `1.2.3`), and the very same string, dirty or
 * not, is the same build. `unknown` on either side, or a value that is not a plain version
 * string, proves nothing: no notice.
 */
export function isNewVersion(client: string, server: unknown): boolean {
  if (typeof server !== 'string') return false;
  if (server === '' || server.length > MAX_LENGTH || /[\s\u0000-\u001f\u007f]/.test(server)) return false;
  if (client === 'unknown' || server === 'unknown') return false;
  return !(client === server || sameTag(client, server));
}
