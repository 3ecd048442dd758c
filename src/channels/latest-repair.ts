import { compareVersions, sameTag, stripV } from '../version/compare.ts';
import { imageTagOf } from '../version/image-tag.ts';
import type { OrderedVersion } from '../version/kinds.ts';
import { parseVersion } from '../version/parse.ts';

/**
 * Where `latest` must point, decided from the store alone so that every promotion that looks at
 * the same store reaches the same answer (the convergence argument is in
 * `registry/settle-latest.ts`). Pure: no IO.
 */
export interface LatestTarget {
  /** The version's image tag (`v1.3.0`, or `2026.7.0`: as the first artifact spells it). */
  version: string;
  /** The tag as it is spelled in each artifact's repository (`v1.3.0` or `1.3.0`). */
  tagOf: Record<string, string>;
}

/**
 * The highest stable version that every artifact carries. A version tagged in only some
 * artifacts is a release still being written (or one that failed part-way, which a re-run
 * completes): `latest` never points at it, because the other artifacts have no such image.
 * Returns null when no stable version is common to all artifacts.
 */
export function latestTarget(tagsByArtifact: Record<string, readonly string[]>): LatestTarget | null {
  const names = Object.keys(tagsByArtifact).sort();
  if (names.length === 0) return null;
  const perArtifact = names.map((artifact) => {
    // Keyed without the `v`: `v1.3.0` in one repository and `1.3.0` in another are one version.
    const stable = new Map<string, string>();
    for (const tag of tagsByArtifact[artifact]!) {
      const v = parseVersion(tag);
      if (v.kind !== 'release' || v.dirty) continue;
      const key = stripV(tag);
      // Both spellings in one repository: keep the one written with the `v` (either names the image).
      if (!stable.has(key) || tag.startsWith('v')) stable.set(key, tag);
    }
    return stable;
  });
  let best: { version: OrderedVersion; tag: string } | undefined;
  for (const tag of perArtifact[0]!.keys()) {
    if (!perArtifact.every((stable) => stable.has(tag))) continue;
    const version = parseVersion(tag) as OrderedVersion;
    if (!best || compareVersions(version, best.version) > 0) best = { version, tag };
  }
  if (!best) return null;
  const key = best.tag;
  return {
    version: perArtifact[0]!.get(key)!,
    tagOf: Object.fromEntries(names.map((a, i) => [a, perArtifact[i]!.get(key)!])),
  };
}

/** One artifact as read during a settle round: the target's digest there, and `latest`'s. */
export interface LatestObservation {
  repository: string;
  /** Digest of the target version's tag; null when it vanished between listing and resolving. */
  target: string | null;
  /** Digest `latest` points at; null when there is no `latest`. */
  latest: string | null;
}

export interface LatestRepair {
  artifact: string;
  repository: string;
  from: string | null;
  to: string;
}

export interface RepairDecision {
  /** Every artifact's `latest` already points at the target version's image. */
  converged: boolean;
  /** The writes that bring `latest` to the target (empty when converged). */
  repairs: LatestRepair[];
}

/**
 * What to write so that `latest` of every artifact points at the target version's image. An
 * artifact whose target digest could not be read is left for the next round (not converged).
 */
export function decideLatestRepairs(observed: Record<string, LatestObservation>): RepairDecision {
  const repairs: LatestRepair[] = [];
  let converged = true;
  for (const artifact of Object.keys(observed).sort()) {
    const o = observed[artifact]!;
    if (o.target === null) {
      converged = false;
      continue;
    }
    if (o.latest === o.target) continue;
    converged = false;
    repairs.push({ artifact, repository: o.repository, from: o.latest, to: o.target });
  }
  return { converged, repairs };
}

/** What happened to this run's own `latest`, for its output (all inputs are what it saw). */
export type LatestOutcome =
  /** latest of every artifact is at this run's version. */
  | { kind: 'current'; version: string }
  /** A higher release is present: latest is there, not at this version (exit 0: nothing is wrong). */
  | { kind: 'superseded'; version: string; by: string }
  /** This version is not on every artifact (it failed part-way): latest is at the highest that is. */
  | { kind: 'incomplete'; version: string; latest: string | null }
  /** The settle did not reach one answer within its bound: latest may still be split. */
  | { kind: 'unsettled'; version: string };

export function latestOutcome(
  own: string,
  settled: {
    converged: boolean;
    target: LatestTarget | null;
    tagsByArtifact: Record<string, readonly string[]>;
  },
): LatestOutcome {
  const version = imageTagOf(parseVersion(own));
  if (!settled.converged) return { kind: 'unsettled', version };
  const complete = Object.values(settled.tagsByArtifact).every((tags) =>
    tags.some((t) => sameTag(t, version)),
  );
  if (!complete) return { kind: 'incomplete', version, latest: settled.target?.version ?? null };
  if (settled.target && !sameTag(settled.target.version, version))
    return { kind: 'superseded', version, by: settled.target.version };
  return { kind: 'current', version };
}
