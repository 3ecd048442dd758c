import type { Version } from './kinds.ts';

/** Docker/OCI tag grammar (distribution spec): what any value we stamp or push must match. */
export const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * The image tag for a version: releases and release candidates are always `v`-prefixed
 * (`1.2.3` and `v1.2.3` both give `v1.2.3`); every other kind is used as it is.
 */
export function imageTagOf(version: Version): string {
  if (version.kind === 'release' || version.kind === 'rc') {
    return version.raw.startsWith('v') ? version.raw : `v${version.raw}`;
  }
  return version.raw;
}

export function isValidImageTag(tag: string): boolean {
  return IMAGE_TAG.test(tag);
}
