import { compareSemver, sameTag } from './compare.ts';
import { isOrdered, type OrderedVersion, type Version } from './kinds.ts';
import { satisfiesMinimum } from './minimum.ts';
import { parseVersion } from './parse.ts';

// How far each artifact may be from the API before it is a warning or drift. Pure: the checks in
// src/verify and `release watch` hand in versions already read. The defaults are exactly the
// behaviour before the policy existed (everything equal to the API, CLI at or above the minimum),
// so a config without `skew:` changes nothing.

/** `ok` in step by the policy; `warn` allowed but worth seeing (exit 0 unless `--fail-on warn`); `drift`. */
export type SkewGrade = 'ok' | 'warn' | 'drift';

/** The pairs the policy grades: every artifact against the API, which the operator points at. */
export type SkewPair = 'worker-api' | 'web-api' | 'cli-api';
export const SKEW_PAIRS: readonly SkewPair[] = ['worker-api', 'web-api', 'cli-api'];

/**
 * A tolerance: at most `minor` minor versions apart, or within the same minor at most `patch`
 * patch versions apart; further than that is `beyond`. A different major is always beyond.
 */
export interface SkewWindow {
  minor: number;
  patch: number;
  beyond: 'warn' | 'drift';
}

export interface SkewPolicy {
  /** Web behind the API (a CDN serving the previous bundle); web ahead of the API is always drift. */
  web: SkewWindow;
  /** The operator's CLI behind or ahead of the API, once it is at or above `min_cli_version`. */
  cli: SkewWindow;
  /** A pair that differs where either side is a development build (describe, hash, dirty, prerelease). */
  dev: SkewGrade;
  /** A pair where either side says `unknown` or is not a version at all. */
  unknown: SkewGrade;
}

export const DEFAULT_SKEW_POLICY: SkewPolicy = {
  web: { minor: 0, patch: 0, beyond: 'drift' },
  cli: { minor: 0, patch: 0, beyond: 'drift' },
  dev: 'drift',
  unknown: 'drift',
};

/**
 * The rule that decided a grade, by the config key an operator would change (`skew.web`), or the
 * spec rule that no config changes (`skew.worker`, `min_cli_version`). `equal` needs no rule.
 */
export type SkewRule =
  | 'equal'
  | 'skew.worker'
  | 'skew.web'
  | 'skew.web.ahead'
  | 'skew.cli'
  | 'min_cli_version'
  | 'skew.dev'
  | 'skew.unknown';

export interface SkewVerdict {
  pair: SkewPair;
  grade: SkewGrade;
  rule: SkewRule;
  /** One sentence: the rule as configured and where this pair stands against it. */
  reason: string;
}

/**
 * Grade one artifact's version against the API's. `minCliVersion` is the API's `min_cli_version`
 * (only the `cli-api` pair reads it; a malformed one is reported elsewhere and ignored here).
 */
export function gradeSkew(
  pair: SkewPair,
  api: string,
  other: string,
  policy: SkewPolicy = DEFAULT_SKEW_POLICY,
  minCliVersion?: string,
): SkewVerdict {
  const who = pair.slice(0, pair.indexOf('-'));
  const verdict = (grade: SkewGrade, rule: SkewRule, reason: string): SkewVerdict => ({
    pair,
    grade,
    rule,
    reason,
  });
  const a = parseVersion(api);
  const o = parseVersion(other);
  if (isUnversioned(a) || isUnversioned(o)) {
    const which = isUnversioned(a) ? `the API's "${api}"` : `the ${who}'s "${other}"`;
    return verdict(
      policy.unknown,
      'skew.unknown',
      `${which} is not a version; skew.unknown grades that ${policy.unknown}`,
    );
  }
  if (pair === 'cli-api' && minCliVersion !== undefined) {
    const minimum = satisfiesMinimum(other, minCliVersion);
    if (minimum.verdict === 'fail') {
      return verdict(
        'drift',
        'min_cli_version',
        `${minimum.reason} (min_cli_version): every svc command is blocked`,
      );
    }
  }
  if (!a.dirty && !o.dirty && sameTag(api, other))
    return verdict('ok', 'equal', `${who} and API are both ${api}`);
  // Development builds are graded on their own, for every pair: they have no release to be near.
  if (isDevBuild(a) || isDevBuild(o)) {
    const which = isDevBuild(a) ? `the API's ${api}` : `the ${who}'s ${other}`;
    return verdict(
      policy.dev,
      'skew.dev',
      `${which} is a development build that differs; skew.dev grades that ${policy.dev}`,
    );
  }
  if (pair === 'worker-api') {
    return verdict(
      'drift',
      'skew.worker',
      `the worker (${other}) must run the API's version (${api}): API and worker are upgraded together (spec section 9)`,
    );
  }
  // Both are releases or release candidates from here on.
  const window = pair === 'web-api' ? policy.web : policy.cli;
  const rule: SkewRule = pair === 'web-api' ? 'skew.web' : 'skew.cli';
  const ahead = compareSemver(o as OrderedVersion, a as OrderedVersion) > 0;
  if (pair === 'web-api' && ahead) {
    return verdict(
      'drift',
      'skew.web.ahead',
      `web ${other} is ahead of the API ${api}: it may call what the API does not serve yet`,
    );
  }
  const distance = distanceOf(a as OrderedVersion, o as OrderedVersion);
  const allowed = describeWindow(window, pair === 'web-api' ? 'behind' : 'behind or ahead of');
  const where = `${who} ${other} is ${distance.text} ${ahead ? 'ahead of' : 'behind'} the API ${api}`;
  return within(distance, window)
    ? verdict('ok', rule, `${where}; ${rule} allows ${allowed}`)
    : verdict(window.beyond, rule, `${where}; ${rule} allows ${allowed}`);
}

interface Distance {
  major: bigint;
  minor: bigint;
  patch: bigint;
  text: string;
}

/**
 * How far apart two ordered versions are. Two builds of one X.Y.Z that differ in their
 * prerelease (v1.4.0-rc.2 against v1.4.0) count as one patch apart: not equal, and the smallest
 * step a window can allow.
 */
function distanceOf(a: OrderedVersion, o: OrderedVersion): Distance {
  const abs = (n: bigint) => (n < 0n ? -n : n);
  const major = abs(a.core.major - o.core.major);
  const minor = abs(a.core.minor - o.core.minor);
  let patch = abs(a.core.patch - o.core.patch);
  if (major === 0n && minor === 0n && patch === 0n) patch = 1n;
  const text =
    major > 0n
      ? `${major} major`
      : minor > 0n
        ? `${minor} minor`
        : a.core.patch === o.core.patch
          ? 'a prerelease'
          : `${patch} patch`;
  return { major, minor, patch, text };
}

function within(d: Distance, w: SkewWindow): boolean {
  if (d.major > 0n) return false;
  if (d.minor > 0n) return d.minor <= BigInt(w.minor);
  // Any patch difference inside one minor is smaller than a minor step.
  return d.patch <= BigInt(w.patch) || w.minor > 0;
}

function describeWindow(w: SkewWindow, direction: string): string {
  if (w.minor === 0 && w.patch === 0) return `no skew (it must equal the API; beyond is ${w.beyond})`;
  const parts = w.minor > 0 ? `${w.minor} minor` : `${w.patch} patch`;
  return `at most ${parts} version(s) ${direction} the API (beyond is ${w.beyond})`;
}

function isUnversioned(v: Version): boolean {
  return v.kind === 'unknown' || v.kind === 'invalid';
}

/** Not a signed, versioned build: a description, a bare hash, a dirty tree or a non-rc prerelease. */
export function isDevBuild(v: Version): boolean {
  return v.dirty || !isOrdered(v) || v.kind === 'describe' || v.kind === 'prerelease';
}
