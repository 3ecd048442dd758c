import { ARTIFACT_IMAGE_ROLES, type ArtifactImageRole } from './constants.ts';

/** What the order looks at: an artifact's name and role. */
type Ordered = { name: string; role?: ArtifactImageRole | undefined };

// No zod here: artifacts.ts sorts with it, and `release stamp` must not load the validator.

/**
 * api, worker, web, job by role, then the rest; within a role, the artifact named for it first (the
 * `worker` before a `scheduler` worker), then by name: the order every list of images follows.
 */
export function roleOrder(a: Ordered, b: Ordered): number {
  const rank = (x: Ordered) => (x.role ? ARTIFACT_IMAGE_ROLES.indexOf(x.role) : ARTIFACT_IMAGE_ROLES.length);
  const named = (x: Ordered) => (x.name === x.role ? 0 : 1);
  return rank(a) - rank(b) || named(a) - named(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
