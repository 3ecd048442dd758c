import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ImageStore } from '../../src/registry/store.ts';
import { compareVersionStrings } from '../../src/version/compare.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, pushImage, type TestImage } from '../helpers/make-image.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { ARTIFACTS, type Artifact, digestsOf, REPOS, recordDigests, stampedProject } from './project.ts';

// Shared by the concurrency suites: rounds of N concurrent `release promote`
// processes over one store, each round from a fresh seed, invariants checked after each round.

/** The stable version every round starts with, tagged and `latest`. */
export const SEED = 'v1.5.0';
const BACKPORTS = ['v1.2.0', 'v1.4.1'];
const NEWER = ['v1.5.1', 'v1.6.0', 'v1.7.0', 'v2.0.0'];
const RC = 'v2.1.0-rc.1';
const DEV = 'v2.1.0-dev.7';
export const VERSIONS = [SEED, ...BACKPORTS, ...NEWER, RC, DEV];

/** One small image per artifact per version, made once: a version always means the same images. */
export type ImageSets = Record<string, Record<Artifact, TestImage>>;

export function makeImageSets(): ImageSets {
  const sets: ImageSets = {};
  for (const version of VERSIONS) {
    sets[version] = {} as Record<Artifact, TestImage>;
    for (const a of ARTIFACTS) sets[version][a] = makeImage({ size: 256 });
  }
  return sets;
}

export const digestOf = (sets: ImageSets, version: string) =>
  Object.fromEntries(ARTIFACTS.map((a) => [a, sets[version]![a].descriptor.digest])) as Record<
    Artifact,
    string
  >;

/** Push the round's images by digest (untagged), then the seed under its version and `latest`. */
export async function seedStore(store: ImageStore, sets: ImageSets, runs: Run[]): Promise<void> {
  const versions = new Set([SEED, ...runs.map((r) => r.version)]);
  await Promise.all(
    ARTIFACTS.map(async (a) => {
      for (const version of versions) await pushImage(store, REPOS[a], sets[version]![a]);
    }),
  );
  for (const a of ARTIFACTS) {
    const image = sets[SEED]![a];
    for (const tag of [SEED, 'latest'])
      await store.putManifest(REPOS[a], tag, image.manifest, image.descriptor.mediaType);
  }
}

export interface Run {
  channel: 'release' | 'rc' | 'dev';
  version: string;
}

/** mulberry32: the same seed gives the same rounds on every run of the suite. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A round: one backport, two newer releases (sometimes the same version twice, as two CI jobs
 * of one tag), and an rc or a dev promotion. Shuffled, so no run is always started first.
 */
export function roundRuns(random: () => number, round: number): Run[] {
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const runs: Run[] = [
    { channel: 'release', version: pick(BACKPORTS) },
    { channel: 'release', version: pick(NEWER) },
    { channel: 'release', version: pick(NEWER) },
    round % 2 ? { channel: 'dev', version: DEV } : { channel: 'rc', version: RC },
  ];
  for (let i = runs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [runs[i], runs[j]] = [runs[j]!, runs[i]!];
  }
  return runs;
}

/** One stamped project per concurrent slot, stamped once; each round rewrites config and record. */
export async function slotProjects(n: number): Promise<GitRepo[]> {
  const repos: GitRepo[] = [];
  for (let i = 0; i < n; i++) repos.push(await stampedProject('v0.0.1', { registry: 'oci-layout:unused' }));
  return repos;
}

export function prepareSlot(repo: GitRepo, registry: string, sets: ImageSets, run: Run): void {
  writeFileSync(join(repo.dir, 'release.config.json'), JSON.stringify({ registry }));
  recordDigests(repo, digestOf(sets, run.version), run.version);
}

export function promoteArgs(run: Run): string[] {
  return [
    'promote',
    '--channel',
    run.channel,
    '--version',
    run.version,
    ...(run.channel === 'rc' ? ['--no-sign'] : []),
    '--json',
  ];
}

export interface LatestJson {
  outcome: { kind: string; version: string; by?: string };
  converged: boolean;
  version: string | null;
  rounds: number;
  repairs: { reference: string; from: string | null; to: string; version: string }[];
}

export function runPromote(repo: GitRepo, run: Run, env: Record<string, string>): Promise<RunResult> {
  return runRelease(promoteArgs(run), { cwd: repo.dir, env, timeoutMs: 90_000 });
}

/** The highest stable version tagged in every artifact, read from the store. */
export async function highestComplete(store: ImageStore): Promise<string> {
  let best = SEED;
  for (const version of VERSIONS) {
    if (!/^v\d+\.\d+\.\d+$/.test(version)) continue;
    const d = await digestsOf(store, version);
    if (ARTIFACTS.every((a) => d[a] !== null) && compareVersionStrings(version, best) > 0) best = version;
  }
  return best;
}

/**
 * The invariants after a round: no version tag changed (each is absent or at its version's
 * images), `latest` of every artifact at the highest stable version all carry, rc and dev tags
 * where their runs put them, and each run's exit code and `--json` telling the truth.
 */
export async function checkRound(
  store: ImageStore,
  sets: ImageSets,
  runs: Run[],
  results: RunResult[],
  where: string,
  faulty?: number,
): Promise<{ highest: string; outcomes: string[] }> {
  for (const version of VERSIONS) {
    const d = await digestsOf(store, version);
    for (const a of ARTIFACTS)
      expect([null, sets[version]![a].descriptor.digest], `${where} ${a}:${version}`).toContain(d[a]);
  }
  const highest = await highestComplete(store);
  expect(await digestsOf(store, 'latest'), `${where}: latest should be ${highest}`).toEqual(
    digestOf(sets, highest),
  );
  const outcomes: string[] = [];
  runs.forEach((run, i) => {
    const result = results[i]!;
    const label = `${where} run ${i} (${run.channel} ${run.version}${i === faulty ? ', faulty' : ''})`;
    if (i !== faulty) expect(result.code, `${label}: ${result.stderr}`).toBe(0);
    expect([0, 3], `${label}: ${result.stderr}`).toContain(result.code);
    const out = jsonOf<{ latest: LatestJson | null; error?: { code: string; message: string } }>(result);
    if (result.code !== 0) {
      // A failed run says it failed, and its version is really not on every artifact or latest
      // did not settle (a run whose promotion completed after all does not claim a failure).
      outcomes.push(`failed:${out.error?.code}`);
      expect(out.error?.code, label).toBeTruthy();
      // A failure after writing says where latest ended up once this run had settled it.
      if (/promotion failed/.test(out.error!.message))
        expect(out.error!.message, label).toMatch(/\nlatest: /);
      return;
    }
    if (run.channel !== 'release') {
      expect(out.latest, label).toBeNull();
      outcomes.push(run.channel);
      return;
    }
    // It succeeded: every tag of its version is in place.
    outcomes.push(out.latest!.outcome.kind);
    expect(out.latest!.converged, label).toBe(true);
    expect(['current', 'superseded'], label).toContain(out.latest!.outcome.kind);
    if (out.latest!.outcome.kind === 'superseded') {
      expect(compareVersionStrings(out.latest!.outcome.by!, run.version), label).toBeGreaterThan(0);
      expect(compareVersionStrings(out.latest!.outcome.by!, highest), label).toBeLessThanOrEqual(0);
    } else {
      expect(compareVersionStrings(run.version, highest), label).toBeLessThanOrEqual(0);
    }
    // The run of the final highest version saw itself current: T only rises, and it is the top.
    if (run.version === highest) expect(out.latest!.outcome.kind, label).toBe('current');
  });
  for (const [i, run] of runs.entries()) {
    if (run.channel === 'rc' && results[i]!.code === 0)
      expect(await digestsOf(store, RC), where).toEqual(digestOf(sets, RC));
    if (run.channel === 'dev' && results[i]!.code === 0)
      expect(await digestsOf(store, 'dev'), where).toEqual(digestOf(sets, DEV));
  }
  return { highest, outcomes };
}

export interface RoundTarget {
  /** The store the invariants are read from (direct, never through the fault proxy). */
  store: ImageStore;
  /** The `registry` config value for slot i. */
  registryFor(i: number): string;
  /** Before the round's processes start (arm a fault), and after they ended. */
  before?(): void;
  after?(): void;
  faulty?: number;
  cleanup?(): void;
}

/**
 * Run `rounds` rounds; the next round's store is seeded while the current round's processes run
 * (the seeding is the test's own load on the store, not part of what is checked).
 */
export async function runRounds(options: {
  label: string;
  rounds: number;
  seed: number;
  repos: GitRepo[];
  sets: ImageSets;
  target(round: number, runs: Run[], random: () => number): RoundTarget;
}): Promise<Record<string, number>> {
  const random = rng(options.seed);
  const started = Date.now();
  const tally: Record<string, number> = {};
  const prepare = async (round: number) => {
    const runs = roundRuns(random, round);
    const target = options.target(round, runs, random);
    await seedStore(target.store, options.sets, runs);
    return { runs, target };
  };
  let next = prepare(1);
  for (let round = 1; round <= options.rounds; round++) {
    const { runs, target } = await next;
    for (const [i, run] of runs.entries())
      prepareSlot(options.repos[i]!, target.registryFor(i), options.sets, run);
    target.before?.();
    const running = Promise.all(runs.map((run, i) => runPromote(options.repos[i]!, run, {})));
    if (round < options.rounds) next = prepare(round + 1);
    const results = await running;
    target.after?.();
    const where = `${options.label} round ${round}`;
    const { outcomes } = await checkRound(target.store, options.sets, runs, results, where, target.faulty);
    for (const o of outcomes) tally[o] = (tally[o] ?? 0) + 1;
    target.cleanup?.();
  }
  console.log(
    `${options.label}: ${options.rounds} rounds in ${Math.round((Date.now() - started) / 1000)} s`,
    tally,
  );
  return tally;
}
