import { describe, expect, it } from 'vitest';
import { DEFAULT_SKEW_POLICY, type SkewPolicy } from '../../version/skew.ts';
import { checkDeployment } from '../checks.ts';
import { exitCodeOf } from '../report.ts';
import type { ArtifactName, ProbeResult } from '../types.ts';

// The checks under a skew policy: which findings become warnings, which vanish, which rule is named.
const URL = 'http://127.0.0.1:8080';
const images = { api: 'service-api', worker: 'service-worker', web: 'service-web' };
const read = (name: ArtifactName, version: string): ProbeResult => ({
  name,
  source: `${name}-source`,
  version,
  ...(name === 'api' ? { minCliVersion: '1.2.0' } : {}),
});
const TOLERANT: SkewPolicy = {
  web: { minor: 1, patch: 0, beyond: 'warn' },
  cli: { minor: 1, patch: 0, beyond: 'warn' },
  dev: 'warn',
  unknown: 'ok',
};

function check(results: ProbeResult[], skew: SkewPolicy = DEFAULT_SKEW_POLICY) {
  const probed = [...new Set(results.map((r) => r.name))];
  const outcome = checkDeployment({ apiUrl: URL, results, probed, images, skew });
  return {
    ...outcome,
    brief: outcome.findings.map((f) => [f.code, f.severity, f.rule?.id]),
    exitCode: exitCodeOf(outcome.findings),
    failOnWarn: exitCodeOf(outcome.findings, 'warn'),
  };
}

describe('checkDeployment with a skew policy', () => {
  it('tolerates web and CLI within the window, and grades every pair', () => {
    const c = check(
      [read('api', 'v1.4.0'), read('worker', 'v1.4.0'), read('web', 'v1.3.0'), read('cli', 'v1.5.1')],
      TOLERANT,
    );
    expect(c.brief).toEqual([]);
    expect(c.skew.map((v) => [v.pair, v.grade, v.rule])).toEqual([
      ['worker-api', 'ok', 'equal'],
      ['web-api', 'ok', 'skew.web'],
      ['cli-api', 'ok', 'skew.cli'],
    ]);
  });

  it('warns beyond a warn window: exit 0, and 1 with --fail-on warn', () => {
    const c = check([read('api', 'v1.4.0'), read('worker', 'v1.4.0'), read('cli', 'v1.6.0')], TOLERANT);
    expect(c.brief).toEqual([['TAG_MISMATCH', 'warn', 'skew.cli']]);
    expect([c.exitCode, c.failOnWarn]).toEqual([0, 1]);
  });

  it('keeps the worker equal to the API whatever the policy (spec section 9)', () => {
    const c = check([read('api', 'v1.4.0'), read('worker', 'v1.4.0-rc.3')], TOLERANT);
    expect(c.brief).toEqual([['API_WORKER_MISMATCH', 'drift', 'skew.worker']]);
  });

  it('grades a development build by skew.dev and an unknown one by skew.unknown', () => {
    const c = check(
      [read('api', 'v1.4.0'), read('worker', 'v1.4.0'), read('web', 'abcdef0'), read('cli', 'unknown')],
      TOLERANT,
    );
    expect(c.brief).toEqual([['VERSION_BARE_HASH', 'warn', 'skew.dev']]);
    const strict = check([read('api', 'v1.4.0'), read('web', 'abcdef0'), read('cli', 'unknown')]);
    expect(strict.brief).toEqual([
      ['VERSION_BARE_HASH', 'drift', 'skew.dev'],
      ['VERSION_UNKNOWN', 'drift', 'skew.unknown'],
    ]);
  });

  it('blocks a CLI below min_cli_version whatever the window, by that rule', () => {
    const c = check([read('api', 'v1.4.0'), read('cli', 'v1.1.0')], TOLERANT);
    expect(c.brief).toEqual([['CLI_BELOW_MINIMUM', 'drift', 'min_cli_version']]);
  });

  it('has no pair verdicts when the API could not be read', () => {
    const api: ProbeResult = { name: 'api', source: URL, version: undefined, error: 'refused' };
    expect(check([api, read('worker', 'v1.4.0')]).skew).toEqual([]);
  });
});
