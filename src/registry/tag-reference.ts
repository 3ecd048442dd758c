import { UsageError } from '../errors.ts';
import { isValidImageTag } from '../version/image-tag.ts';
import { isDigest } from './digest.ts';

/**
 * Refuse a tag the distribution spec would not take before a store writes it: a registry answers
 * such a PUT with an error of its own, but a layout on disk would keep it, and an archive carried
 * across an air gap would then hold a tag no registry can load.
 */
export function assertTagOrDigest(reference: string): void {
  if (isDigest(reference) || isValidImageTag(reference)) return;
  throw new UsageError('TAG_INVALID', `"${reference}" is not a valid image tag`, {
    hint: 'tags are 1-128 characters of [A-Za-z0-9_.-], not starting with "." or "-"',
  });
}
