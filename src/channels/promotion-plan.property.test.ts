import { describe, expect, it } from 'vitest';
import { RuleError } from '../errors.ts';
import { compareVersionStrings, sameTag } from '../version/compare.ts';
import { parseVersion } from '../version/parse.ts';
import type { Channel } from './channel-of.ts';
import { orderedWrites, type PromotionInput, type PromotionPlan, planPromotion } from './promotion-plan.ts';

// Property tests over random tag histories from a small seeded generator (mulberry32): the same
// seed gives the same histories on every run, and a failure prints the seed and the input.

const RUNS = 1500;
const SEED = 0x5eed6;

function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

type Rng = ReturnType<typeof rng>;
// A small pool so that collisions (same digest under several tags) happen often.
const digest = (r: Rng) => `sha256:${String(r.int(6)).repeat(64)}`;
const core = (r: Rng) => `${r.int(3)}.${r.int(3)}.${r.int(3)}`;

/**
 * How a history spells its version tags: a `v` project, one without (`2026.7.0`, plain semver),
 * or a mixed one (a project that dropped or adopted the `v` on the way).
 */
type Spelling = 'v' | 'bare' | 'mixed';
const prefix = (r: Rng, spelling: Spelling) =>
  spelling === 'v' ? 'v' : spelling === 'bare' ? '' : r.next() < 0.5 ? 'v' : '';

function randomTag(r: Rng, spelling: Spelling): string {
  const v = prefix(r, spelling);
  return r.pick([
    () => `${v}${core(r)}`,
    () => `${v}${core(r)}`,
    () => `${v}${core(r)}-rc.${r.int(3)}`,
    () => `${v}${core(r)}-beta.1`,
    () => 'latest',
    () => 'dev',
    () => `sha-${'abc0123456789'.slice(r.int(2), 12 + r.int(2))}`,
    () => r.pick(['nightly', 'stable', 'main', 'constructor', 'v1', '1.0']),
    () => `v${core(r)}-dirty`,
  ])();
}

function randomInput(r: Rng): PromotionInput {
  const channel = r.pick<Channel>(['dev', 'rc', 'release', 'release']);
  const spelling = r.pick<Spelling>(['v', 'v', 'bare', 'mixed']);
  const version =
    channel === 'release'
      ? `${prefix(r, spelling)}${core(r)}`
      : channel === 'rc'
        ? `${prefix(r, spelling)}${core(r)}-rc.${r.int(3)}`
        : r.pick(['v1.0.0-3-gabcdef0', 'abcdef0', 'unknown', 'v2.0.0-dirty']);
  const artifacts: PromotionInput['artifacts'] = {};
  for (const name of ['api', 'worker', 'web'].slice(0, 1 + r.int(3))) {
    const tags: Record<string, string> = {};
    for (let i = r.int(8); i > 0; i--) tags[randomTag(r, spelling)] = digest(r);
    const source = digest(r);
    // Now and then the version is already on this image under its other spelling.
    if (channel !== 'dev' && r.next() < 0.15) tags[otherSpelling(version)] = source;
    artifacts[name] = { repository: `svc-${name}`, source, tags };
  }
  const commit = r.next() < 0.7 ? 'abc0123456789abcdef0123456789abcdef01234' : undefined;
  return { version, channel, commit, dirty: r.next() < 0.05, artifacts };
}

const otherSpelling = (tag: string) => (tag.startsWith('v') ? tag.slice(1) : `v${tag}`);

/** Carry a plan out on the in-memory histories, as the apply step does on a store. */
function apply(input: PromotionInput, plan: PromotionPlan): PromotionInput {
  const artifacts = structuredClone(input.artifacts);
  for (const w of orderedWrites(plan)) artifacts[w.artifact]!.tags[w.tag] = w.to;
  return { ...input, artifacts };
}

const isStable = (t: string) => {
  const v = parseVersion(t);
  return v.kind === 'release' && !v.dirty;
};

function checkInvariants(input: PromotionInput): string {
  let plan: PromotionPlan;
  try {
    plan = planPromotion(input);
  } catch (error) {
    expect(error).toBeInstanceOf(RuleError);
    const code = (error as RuleError).code;
    if (code === 'TAG_IMMUTABLE') {
      // Refused only when a tag naming this version really points elsewhere.
      const moved = Object.values(input.artifacts).some((a) =>
        Object.entries(a.tags).some(([t, d]) => sameTag(t, plan0Tag(input)) && d !== a.source),
      );
      expect(moved).toBe(true);
    } else {
      expect(code).toBe('CHANNEL_REFUSED');
      const v = parseVersion(input.version);
      expect(input.channel === 'dev' || input.dirty || v.dirty || v.kind !== input.channel).toBe(true);
    }
    return code;
  }
  const writes = orderedWrites(plan);
  const floatingSeen = { at: -1 };
  writes.forEach((w, i) => {
    const state = input.artifacts[w.artifact]!;
    // Every write changes something, to the artifact's own source digest.
    expect(w.to).toBe(state.source);
    expect(w.from).not.toBe(w.to);
    expect(w.from).toBe(Object.hasOwn(state.tags, w.tag) ? state.tags[w.tag] : null);
    // A version tag is only ever created, never moved, and never beside its other spelling on
    // the same image (`v2026.7.0` there already: `2026.7.0` is not written too).
    if (w.kind === 'version') {
      expect(w.from).toBeNull();
      const twin = Object.entries(state.tags).find(
        ([t, d]) => t !== w.tag && sameTag(t, w.tag) && d === w.to,
      );
      expect(twin).toBeUndefined();
    }
    // Floating tags come after every version and commit tag.
    if (w.kind === 'floating') floatingSeen.at = floatingSeen.at < 0 ? i : floatingSeen.at;
    else expect(floatingSeen.at).toBe(-1);
    // Channel rules on which tags may be written at all.
    if (input.channel === 'rc') expect(w.tag).toBe(plan.tag);
    if (input.channel === 'release') expect([plan.tag, 'latest']).toContain(w.tag);
    if (input.channel === 'dev') {
      expect(w.tag === 'dev' || /^sha-[0-9a-f]{12}$/.test(w.tag)).toBe(true);
      if (w.tag.startsWith('sha-')) expect(input.commit?.startsWith(w.tag.slice(4))).toBe(true);
    }
  });
  // Tagged as the project spells it: never a `v` added or dropped.
  if (input.channel === 'rc' || input.channel === 'release') expect(plan.tag).toBe(input.version);

  // latest moves only to the highest stable version present, and for all artifacts or none.
  const after = apply(input, plan);
  if (input.channel === 'release') {
    const stable = Object.values(input.artifacts).flatMap((a) => Object.keys(a.tags).filter(isStable));
    const highest = stable.every((t) => compareVersionStrings(plan.tag, t) >= 0);
    const atSource = Object.values(after.artifacts).map((a) => a.tags['latest'] === a.source);
    if (highest) expect(atSource.every(Boolean)).toBe(true);
    else {
      expect(writes.some((w) => w.tag === 'latest')).toBe(false);
      for (const a of plan.artifacts) expect(a.kept.some((k) => /is a backport/.test(k.reason))).toBe(true);
    }
  } else {
    expect(writes.some((w) => w.tag === 'latest')).toBe(false);
  }
  // Every intended tag ends at the source digest unless the plan said why not; the version is on
  // every artifact in one spelling or the other.
  for (const a of plan.artifacts) {
    const end = after.artifacts[a.artifact]!;
    for (const k of a.kept) if (k.tag !== 'latest') expect(end.tags[k.tag]).toBe(a.source);
    if (input.channel !== 'dev')
      expect(Object.entries(end.tags).some(([t, d]) => sameTag(t, plan.tag) && d === a.source)).toBe(true);
  }
  // Idempotent: promoting again changes nothing.
  expect(orderedWrites(planPromotion(after))).toEqual([]);
  if (plan.artifacts.some((a) => a.kept.some((k) => k.tag !== plan.tag && sameTag(k.tag, plan.tag))))
    return 'kept as the other spelling';
  return input.channel;
}

function plan0Tag(input: PromotionInput): string {
  return input.version;
}

describe('planPromotion properties', () => {
  it(`hold over ${RUNS} random tag histories (seed ${SEED})`, () => {
    const r = rng(SEED);
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < RUNS; i++) {
      const input = randomInput(r);
      try {
        const outcome = checkInvariants(input);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      } catch (error) {
        throw new Error(`run ${i} (seed ${SEED}) failed for ${JSON.stringify(input)}:\n${String(error)}`);
      }
    }
    // The generator must exercise every branch, or the properties prove little.
    for (const key of ['dev', 'rc', 'release', 'TAG_IMMUTABLE', 'CHANNEL_REFUSED'])
      expect(outcomes[key] ?? 0).toBeGreaterThan(20);
    // ...and the histories that spell a version both ways (one kept under its other spelling).
    expect(outcomes['kept as the other spelling'] ?? 0).toBeGreaterThan(5);
  });
});
