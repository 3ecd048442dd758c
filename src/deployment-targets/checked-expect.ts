import { UsageError } from '../errors.ts';
import { parseVersion } from '../version/parse.ts';

/** `--expect <tag>` of verify and watch: a release tag, else a usage error (exit 2). */
export function checkedExpect(tag: string): string {
  const kind = parseVersion(tag).kind;
  if (kind === 'invalid' || kind === 'unknown' || kind === 'hash') {
    throw new UsageError('VERIFY_BAD_EXPECT', `--expect "${tag}" is not a release tag`, {
      hint: 'give the tag the deployment should run, like --expect v1.4.0',
    });
  }
  return tag;
}
