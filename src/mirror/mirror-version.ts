import { UsageError } from '../errors.ts';
import { printable } from '../text/printable.ts';
import { imageTagOf } from '../version/image-tag.ts';
import { parseVersion } from '../version/parse.ts';

/**
 * The tag `release mirror --version` carries: a release or an rc, as written (the source store's
 * own spelling, with or without `v`, is looked up by the command). Anything else is refused before a store is opened: a channel name
 * such as `latest` would be written to the target as if it were a version, moving its `latest`
 * outside the rule that guards it, and a dirty or development build is never a release to carry.
 */
export function mirrorVersionTag(raw: string): string {
  const version = parseVersion(raw);
  if ((version.kind === 'release' || version.kind === 'rc') && !version.dirty) return imageTagOf(version);
  throw new UsageError(
    'MIRROR_VERSION_INVALID',
    `--version "${printable(raw)}" is not a release or rc version`,
    { hint: 'name the release or rc to carry, e.g. --version v3.1.0 or --version v3.1.0-rc.1' },
  );
}
