/**
 * What every deployment engine's upgrade shares, owned by none of them: the roles services play,
 * the image each role moves to, why an upgrade stopped, and how often an engine is asked while
 * waiting. Swarm (`swarm/`), Compose (`compose/`) and any engine after them build on these; this
 * module imports no engine.
 */

/** The roles a deployment's services play; API and worker always move together (spec 9.5). */
export const SERVICE_ROLES = ['api', 'worker', 'web'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

/** An artifact whose image an upgrade resolves and moves, and the phase it moves in. */
export interface TargetArtifact {
  artifact: string;
  role: ServiceRole;
}

/**
 * The image an artifact's services should run: resolved from the store, pinned by digest. One per
 * artifact whose image moves: api, worker, every web client (an app and an admin dashboard are
 * two targets of role web, each its own image), a job of an image of its own.
 */
export interface TargetImage {
  /** The phase it moves in: a job of its own image moves with (before) the API. */
  role: ServiceRole;
  /** The image artifact it was resolved for (`admin`, `seed`): what the plan and report name. */
  artifact: string;
  /** What the engine pulls: `127.0.0.1:5000/acme/service-api`. */
  repository: string;
  tag: string;
  digest: string;
}

/** `repo:tag@sha256:...`: the tag for people and `release verify`, the digest for the engine. */
export function pinnedImage(target: TargetImage): string {
  return `${target.repository}:${target.tag}@${target.digest}`;
}

/** An image reference without its digest or tag: `127.0.0.1:5000/acme/service-api`. */
export function repositoryOf(reference: string): string {
  const at = reference.indexOf('@');
  const named = at >= 0 ? reference.slice(0, at) : reference;
  const colon = named.lastIndexOf(':');
  return colon > named.lastIndexOf('/') ? named.slice(0, colon) : named;
}

/**
 * The target a service of `image` moves to: the one of its image, of `role` when several roles
 * share the image (a scheduler of the API's image is a worker); else, for a service named for a
 * role whose image is written another way, the role's first target. Pure.
 */
export function targetOfImage(
  targets: readonly TargetImage[],
  image: string | undefined,
  role?: ServiceRole,
): TargetImage | undefined {
  const ofImage = image === undefined ? [] : targets.filter((t) => t.repository === repositoryOf(image));
  if (ofImage.length > 0) return ofImage.find((t) => t.role === role) ?? ofImage[0];
  return role ? targets.find((t) => t.role === role) : undefined;
}

/** `repo:tag@sha256:...` -> the digest, if the reference pins one. */
export function pinnedDigest(image: string): string | undefined {
  const at = image.indexOf('@');
  return at >= 0 ? image.slice(at + 1) : undefined;
}

/** What stopped the upgrade: which service (if one), and why, in a sentence. */
export interface UpgradeFailure {
  role?: ServiceRole;
  service?: string;
  /** task: a task failed or ended; version: the wrong version reported; deadline; engine; proof. */
  kind: 'task' | 'version' | 'deadline' | 'engine' | 'proof';
  reason: string;
}

/** Thrown inside an engine's apply and rollback steps to stop at the first thing that went wrong. */
export class UpgradeStop extends Error {
  constructor(readonly failure: UpgradeFailure) {
    super(failure.reason);
  }
}

/** Turn anything thrown while applying into the failure the report names. */
export function failureOf(error: unknown): UpgradeFailure {
  if (error instanceof UpgradeStop) return error.failure;
  return { kind: 'engine', reason: (error as Error).message ?? String(error) };
}

/** How often an engine is asked while waiting (convergence, a reported version). */
export const POLL_MS = 250;
