export {
  type CommitTags,
  highestVersionTag,
  MAX_VERSION_LENGTH,
  shortenDescription,
  VERSION_TAG_GLOBS,
  versionOfCommit,
} from './commit-version.ts';
export {
  compareCore,
  compareSemver,
  compareVersionStrings,
  compareVersions,
  sameTag,
  stripV,
} from './compare.ts';
export { IMAGE_TAG, imageTagOf, isValidImageTag } from './image-tag.ts';
export type * from './kinds.ts';
export { isOrdered } from './kinds.ts';
export { type MinimumResult, type MinimumVerdict, satisfiesMinimum } from './minimum.ts';
export { parseCore, parseSemver, parseVersion } from './parse.ts';
