import { describe, expect, it } from 'vitest';
import { DEFAULT_SKEW_POLICY, gradeSkew, type SkewPair, type SkewPolicy } from './skew.ts';

// Every pair and every grade, under the defaults (today's behaviour) and under a tolerant policy.
const TOLERANT: SkewPolicy = {
  web: { minor: 1, patch: 0, beyond: 'drift' },
  cli: { minor: 1, patch: 0, beyond: 'warn' },
  dev: 'warn',
  unknown: 'warn',
};
const PATCHES: SkewPolicy = { ...DEFAULT_SKEW_POLICY, web: { minor: 0, patch: 2, beyond: 'warn' } };

type Row = [SkewPair, string, string, SkewPolicy, 'ok' | 'warn' | 'drift', string];
const P = { default: DEFAULT_SKEW_POLICY, tolerant: TOLERANT, patches: PATCHES };

const table: [string, Row][] = [
  // worker: equal or drift, whatever the policy (spec section 9)
  ['worker equal, v ignored', ['worker-api', 'v1.4.0', '1.4.0', P.default, 'ok', 'equal']],
  ['worker one patch behind', ['worker-api', 'v1.4.1', 'v1.4.0', P.tolerant, 'drift', 'skew.worker']],
  ['worker rc of the release', ['worker-api', 'v1.4.0', 'v1.4.0-rc.1', P.tolerant, 'drift', 'skew.worker']],
  ['worker describe, default', ['worker-api', 'v1.4.0-2-gabcdef0', 'v1.4.0', P.default, 'drift', 'skew.dev']],
  [
    'worker describe, dev warns',
    ['worker-api', 'v1.4.0-2-gabcdef0', 'v1.4.0', P.tolerant, 'warn', 'skew.dev'],
  ],
  ['worker unknown, default', ['worker-api', 'v1.4.0', 'unknown', P.default, 'drift', 'skew.unknown']],
  ['worker unknown, tolerant', ['worker-api', 'v1.4.0', 'unknown', P.tolerant, 'warn', 'skew.unknown']],
  // web: equal, or behind within the window; ahead is drift
  ['web equal', ['web-api', 'v1.4.0', 'v1.4.0', P.default, 'ok', 'equal']],
  ['web patch behind, default', ['web-api', 'v1.4.1', 'v1.4.0', P.default, 'drift', 'skew.web']],
  ['web patch behind, 2 allowed', ['web-api', 'v1.4.2', 'v1.4.0', P.patches, 'ok', 'skew.web']],
  ['web 3 patches behind, 2 allowed', ['web-api', 'v1.4.3', 'v1.4.0', P.patches, 'warn', 'skew.web']],
  ['web minor behind, 1 allowed', ['web-api', 'v1.4.0', 'v1.3.9', P.tolerant, 'ok', 'skew.web']],
  ['web patch behind, 1 minor allowed', ['web-api', 'v1.4.7', 'v1.4.0', P.tolerant, 'ok', 'skew.web']],
  ['web 2 minor behind, 1 allowed', ['web-api', 'v1.5.0', 'v1.3.0', P.tolerant, 'drift', 'skew.web']],
  ['web major behind', ['web-api', 'v2.0.0', 'v1.9.0', P.tolerant, 'drift', 'skew.web']],
  ['web ahead', ['web-api', 'v1.4.0', 'v1.4.1', P.tolerant, 'drift', 'skew.web.ahead']],
  ['web rc of the API release', ['web-api', 'v1.4.0', 'v1.4.0-rc.2', P.default, 'drift', 'skew.web']],
  ['web rc, patch allowed', ['web-api', 'v1.4.0', 'v1.4.0-rc.2', P.patches, 'ok', 'skew.web']],
  ['web dev build, default', ['web-api', 'v1.4.0', 'v1.4.0-3-gabcdef0', P.default, 'drift', 'skew.dev']],
  ['web dev build, tolerant', ['web-api', 'v1.4.0', 'v1.4.0-3-gabcdef0', P.tolerant, 'warn', 'skew.dev']],
  ['web dirty equal is not equal', ['web-api', 'v1.4.0', 'v1.4.0-dirty', P.default, 'drift', 'skew.dev']],
  ['web unknown', ['web-api', 'v1.4.0', 'unknown', P.default, 'drift', 'skew.unknown']],
  ['API not a version', ['web-api', 'garbage!', 'v1.4.0', P.tolerant, 'warn', 'skew.unknown']],
  // cli: minimum first (always drift), then the window both ways
  ['cli equal', ['cli-api', 'v1.4.0', '1.4.0', P.default, 'ok', 'equal']],
  ['cli below minimum', ['cli-api', 'v1.4.0', 'v1.2.0', P.tolerant, 'drift', 'min_cli_version']],
  ['cli minor behind, default', ['cli-api', 'v1.4.0', 'v1.3.0', P.default, 'drift', 'skew.cli']],
  ['cli minor behind, tolerant', ['cli-api', 'v1.4.0', 'v1.3.0', P.tolerant, 'ok', 'skew.cli']],
  ['cli minor ahead, tolerant', ['cli-api', 'v1.4.0', 'v1.5.2', P.tolerant, 'ok', 'skew.cli']],
  ['cli 2 minor ahead, tolerant: warn', ['cli-api', 'v1.4.0', 'v1.6.0', P.tolerant, 'warn', 'skew.cli']],
  ['cli 2 minor behind above min: warn', ['cli-api', 'v1.5.0', 'v1.3.0', P.tolerant, 'warn', 'skew.cli']],
  ['cli hash build, tolerant', ['cli-api', 'v1.4.0', 'abcdef0', P.tolerant, 'warn', 'skew.dev']],
  ['cli unknown, default', ['cli-api', 'v1.4.0', 'unknown', P.default, 'drift', 'skew.unknown']],
];

describe('gradeSkew: every pair and grade', () => {
  it.each(table)('%s', (_, [pair, api, other, policy, grade, rule]) => {
    const verdict = gradeSkew(pair, api, other, policy, '1.3.0');
    expect({ grade: verdict.grade, rule: verdict.rule }).toEqual({ grade, rule });
    expect(verdict.pair).toBe(pair);
    expect(verdict.reason.length).toBeGreaterThan(10);
  });

  it('says where the pair stands against the window in its reason', () => {
    const v = gradeSkew('web-api', 'v1.5.0', 'v1.3.0', TOLERANT);
    expect(v.reason).toContain('2 minor behind');
    expect(v.reason).toContain('at most 1 minor');
  });

  it('ignores a malformed minimum (reported by its own check)', () => {
    expect(gradeSkew('cli-api', 'v1.4.0', 'v1.4.0', DEFAULT_SKEW_POLICY, 'x').grade).toBe('ok');
  });

  it('orders numbers past 2^53 without losing precision', () => {
    const big = '9007199254740993';
    expect(gradeSkew('web-api', `v1.${big}.0`, `v1.${big}.0`, TOLERANT).grade).toBe('ok');
    expect(gradeSkew('web-api', `v1.${big}.0`, 'v1.9007199254740992.0', TOLERANT).grade).toBe('ok');
    expect(gradeSkew('web-api', `v1.${big}.0`, 'v1.9007199254740991.0', TOLERANT).grade).toBe('drift');
  });
});
