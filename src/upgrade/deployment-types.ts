/**
 * What every deployment engine's upgrade shares, owned by none of them: the roles services play,
 * the image each role moves to, why an upgrade stopped, and how often an engine is asked while
 * waiting. Swarm (`swarm/`), Compose (`compose/`) and any engine after them build on these; this
 * module imports no engine.
 */

/** The roles a deployment's services play; API and worker always move together (spec 9.5). */
export const SERVICE_ROLES = ['api', 'worker', 'web'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

/** The image a role should run: resolved from the store, pinned by digest. */
export interface TargetImage {
  role: ServiceRole;
  /** What the engine pulls: `127.0.0.1:5000/acme/service-api`. */
  repository: string;
  tag: string;
  digest: string;
}

/** `repo:tag@sha256:...`: the tag for people and `release verify`, the digest for the engine. */
export function pinnedImage(target: TargetImage): string {
  return `${target.repository}:${target.tag}@${target.digest}`;
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
