import { UsageError } from '../../../errors.ts';
import { printable } from '../../../text/printable.ts';
import { isValidImageTag } from '../../../version/image-tag.ts';
import { parseVersion } from '../../../version/parse.ts';

/** The build-time variable the web client's version comes from (spec section 2). */
export const CLIENT_VERSION_VARIABLE = 'SERVICE_CLIENT_VERSION';

/** What the client shows when the variable was not set. */
export const UNKNOWN_VERSION = 'unknown';

const MAX_LENGTH = 128;

/**
 * The version to bake into a web build, from the raw value of `SERVICE_CLIENT_VERSION`.
 * Unset or blank gives `unknown`. The value comes from the environment, so it must be a version
 * (`v1.2.3`, `v1.2.3-rc.1`, a git description, a hash) or at least an image tag; anything else
 * (markup, quotes, whitespace, control characters) is refused rather than shipped to browsers.
 */
export function clientVersionOf(raw: string | undefined): string {
  const value = raw?.trim() ?? '';
  if (value === '') return UNKNOWN_VERSION;
  const parsed = parseVersion(value);
  if (value.length > MAX_LENGTH || (parsed.kind === 'invalid' && !isValidImageTag(value))) {
    throw new UsageError(
      'WEB_VERSION_INVALID',
      `${CLIENT_VERSION_VARIABLE} "${printable(value)}" is not a version the web client can show`,
      {
        hint: `set ${CLIENT_VERSION_VARIABLE} to the release tag (v1.2.3, v1.2.3-rc.1; release stamp writes it to dist/release.env) or leave it unset for "unknown"`,
      },
    );
  }
  return value;
}

// Where the escaping lives (a release re-writes the same <meta>); re-exported for the build's users.
export { escapeHtml } from '../../../text/escape-html.ts';
