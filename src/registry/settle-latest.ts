import {
  decideLatestRepairs,
  type LatestObservation,
  type LatestTarget,
  latestTarget,
} from '../channels/latest-repair.ts';
import type { ImageStore, Manifest } from './store.ts';

/*
 * Why concurrent promotions converge, with no compare-and-swap on tags.
 *
 * A registry gives us one primitive: a PUT of a tag is atomic and the last one wins. Any number
 * of `release promote --channel release` runs may interleave their reads and writes arbitrarily.
 * Each run, after writing its own tags (and also when a write failed), runs `settleLatest`:
 *
 *   repeat: read every artifact's tags; T := the highest stable version tagged in EVERY artifact
 *           (a pure function of the store, `latestTarget`); if `latest` of every artifact already
 *           points at T's image, stop; else PUT `latest` := T's image where it differs; read again.
 *
 * Facts the argument uses:
 *  (a) Version tags are only ever added, never moved or removed (the plan refuses a moved version
 *      tag, and the release channel no longer rolls anything back), so T only rises over time.
 *  (b) Only release runs write stable version tags or `latest`, and each one settles after its
 *      last such write; every settle ends with a read made after the run's own last write.
 *  (c) A settle stops only when one complete read showed every `latest` at T's image.
 *
 * Take the last write W, in real time, of a stable version tag or of any `latest` (there is one:
 * every run makes finitely many writes). The run R that made W settles after it (b), and its
 * reads after W see the final tags, because nothing that matters is written after W. If that read
 * were not converged R would write again, after W: a contradiction. So R's final read shows every
 * `latest` at T(final store): whatever the interleaving, the store ends with all artifacts'
 * `latest` on the highest stable version they all carry, and no version tag was changed (a).
 *
 * A run that stops at its bound (rounds or time: concurrent runs may keep moving `latest` for a
 * while, and a registry may keep failing) does not claim convergence: it exits non-zero and says
 * `latest` may be split, and any later `release promote --channel release` repairs it, because the
 * settle runs even when a run has nothing of its own to write. A run killed mid-way (SIGKILL) is
 * the one case the argument does not cover until such a re-run. A write whose answer was lost but
 * which lands later than the writer's next read breaks (b) for that run; the registry applies a
 * PUT before it answers, so on loopback and through a proxy this does not happen.
 *
 * Because T only rises and every round moves `latest` towards the T it read, rounds are few in
 * practice; a random pause after a round that wrote lets concurrent settles finish first.
 * The platform's concurrency group in the CI templates is a second line of defence, not the first.
 */

export interface SettleOptions {
  maxRounds?: number;
  deadlineMs?: number;
  onProgress?: (line: string) => void;
}

export interface SettleRepair {
  artifact: string;
  repository: string;
  from: string | null;
  to: string;
  /** The version `latest` was moved to. */
  version: string;
}

export interface SettleResult {
  converged: boolean;
  target: LatestTarget | null;
  rounds: number;
  /** Every `latest` this run wrote while settling, in order. */
  repairs: SettleRepair[];
  /** Each artifact's tags at the last read. */
  tagsByArtifact: Record<string, string[]>;
  /** Each artifact's `latest` digest at the last read. */
  latest: Record<string, string | null>;
  /** Why the settle stopped without converging (the last error, or the bound it hit). */
  problem?: string;
}

/** Bring `latest` of every artifact to the highest stable version they all carry; see above. */
export async function settleLatest(
  store: ImageStore,
  artifacts: { artifact: string; repository: string }[],
  options: SettleOptions = {},
): Promise<SettleResult> {
  const maxRounds = options.maxRounds ?? 12;
  const deadline = Date.now() + (options.deadlineMs ?? 60_000);
  const manifests = new Map<string, Manifest>();
  const result: SettleResult = {
    converged: false,
    target: null,
    rounds: 0,
    repairs: [],
    tagsByArtifact: {},
    latest: {},
  };
  while (result.rounds < maxRounds) {
    if (Date.now() > deadline) {
      result.problem = `latest did not settle within ${Math.round((options.deadlineMs ?? 60_000) / 1000)} s`;
      return result;
    }
    result.rounds++;
    let wrote = false;
    try {
      const tagsByArtifact: Record<string, string[]> = {};
      for (const { artifact, repository } of artifacts)
        tagsByArtifact[artifact] = await store.listTags(repository);
      const target = latestTarget(tagsByArtifact);
      result.tagsByArtifact = tagsByArtifact;
      result.target = target;
      if (!target) {
        // No stable version is on every artifact: there is nothing latest should point at yet.
        for (const { artifact, repository } of artifacts)
          result.latest[artifact] = (await store.resolve(repository, 'latest'))?.digest ?? null;
        result.converged = true;
        delete result.problem;
        return result;
      }
      const observed: Record<string, LatestObservation> = {};
      for (const { artifact, repository } of artifacts) {
        const latest = (await store.resolve(repository, 'latest'))?.digest ?? null;
        result.latest[artifact] = latest;
        const there = await store.resolve(repository, target.tagOf[artifact]!);
        observed[artifact] = { repository, latest, target: there?.digest ?? null };
      }
      const decision = decideLatestRepairs(observed);
      if (decision.converged) {
        result.converged = true;
        delete result.problem;
        return result;
      }
      for (const repair of decision.repairs) {
        const key = `${repair.repository}@${repair.to}`;
        let manifest = manifests.get(key);
        if (!manifest) {
          manifest = await store.getManifest(repair.repository, repair.to);
          if (!manifest) continue; // gone since it was resolved: the next round reads again
          manifests.set(key, manifest);
        }
        await store.putManifest(repair.repository, 'latest', manifest.bytes, manifest.descriptor.mediaType);
        wrote = true;
        result.repairs.push({ ...repair, version: target.version });
        result.latest[repair.artifact] = repair.to;
        options.onProgress?.(`${repair.repository}:latest -> ${target.version}`);
      }
    } catch (error) {
      // A read or write failed (the registry may be flaky, or a tag vanished under us): try again.
      result.problem = (error as Error).message;
      wrote = true;
    }
    if (wrote) await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 170));
  }
  result.problem ??= `latest did not settle in ${maxRounds} rounds (concurrent promotions kept moving it)`;
  return result;
}
