import { REPOSITORY } from '../config/constants.ts';

/** A repository path component for image names. */
export function repositoryName(raw: string): string {
  const name = raw
    .replace(/^@.*\//, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return REPOSITORY.test(name) ? name : 'service';
}
