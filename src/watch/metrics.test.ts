import { describe, expect, it } from 'vitest';
import type { DeploymentReport } from '../verify/types.ts';
import { labelValue, MAX_LABEL_LENGTH } from './labels.ts';
import { WatchMetrics } from './metrics.ts';
import type { RoundResult } from './round.ts';

function report(name: string, worker: string | undefined, exitCode: 0 | 1 | 3): DeploymentReport {
  return {
    name,
    url: `http://${name}`,
    inStep: exitCode === 0,
    reference: { tag: 'v1.4.0', from: 'api' },
    artifacts: [
      { name: 'api', source: 'x', version: 'v1.4.0', status: 'ok', why: '' },
      {
        name: 'worker',
        source: 'y',
        version: worker,
        status: worker ? (exitCode ? 'drift' : 'ok') : 'unreachable',
        why: '',
      },
    ],
    findings: [],
    skew: worker
      ? [
          {
            pair: 'worker-api',
            grade: exitCode ? 'drift' : 'ok',
            rule: exitCode ? 'skew.worker' : 'equal',
            reason: '',
          },
        ]
      : [],
    exitCode,
    elapsedMs: 1,
  };
}

function round(reports: DeploymentReport[], extra: Partial<RoundResult> = {}): RoundResult {
  return {
    reports,
    failures: [],
    startedAt: new Date(0),
    durationMs: 250,
    complete: true,
    digests: new Map(),
    ...extra,
  };
}

const series = (text: string, name: string) =>
  text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));

describe('WatchMetrics', () => {
  it('exports each role of a shared image as an artifact of its own (a worker and a scheduler)', async () => {
    const m = new WatchMetrics();
    const r = report('site-a', 'v1.4.0', 0);
    r.artifacts.push({
      name: 'worker',
      role: 'scheduler',
      source: 'z',
      version: 'v1.4.0',
      status: 'ok',
      why: '',
    });
    m.update(round([r]));
    expect(series(await m.metrics(), 'service_release_artifact_info')).toEqual([
      'service_release_artifact_info{deployment="site-a",artifact="api",version="v1.4.0",digest="none"} 1',
      'service_release_artifact_info{deployment="site-a",artifact="worker",version="v1.4.0",digest="none"} 1',
      'service_release_artifact_info{deployment="site-a",artifact="scheduler",version="v1.4.0",digest="none"} 1',
    ]);
  });

  it("judges each role of a shared image on its own containers' digest, and counts its failures under it", async () => {
    const m = new WatchMetrics();
    const r = report('site-a', 'v1.4.0', 1);
    r.artifacts.push({
      name: 'worker',
      role: 'scheduler',
      source: 'z',
      version: 'v1.3.0',
      status: 'drift',
      why: '',
    });
    m.update(
      round([r], {
        digests: new Map([['site-a', { api: 'sha256:new', worker: 'sha256:new', scheduler: 'sha256:old' }]]),
        failures: [{ deployment: 'site-a', artifact: 'scheduler', reason: 'refused' }],
      }),
    );
    const text = await m.metrics();
    expect(series(text, 'service_release_artifact_info')).toEqual([
      'service_release_artifact_info{deployment="site-a",artifact="api",version="v1.4.0",digest="sha256:new"} 1',
      'service_release_artifact_info{deployment="site-a",artifact="worker",version="v1.4.0",digest="sha256:new"} 1',
      'service_release_artifact_info{deployment="site-a",artifact="scheduler",version="v1.3.0",digest="sha256:old"} 1',
    ]);
    expect(series(text, 'service_release_probe_failures_total')).toEqual([
      'service_release_probe_failures_total{deployment="site-a",artifact="scheduler",reason="refused"} 1',
    ]);
  });

  it('exports each web client as an artifact of its own, the digest only of the one it was read for', async () => {
    const m = new WatchMetrics();
    const r = report('site-a', 'v1.4.0', 0);
    r.artifacts.push(
      { name: 'web', source: 'w', version: 'v1.4.0', status: 'ok', why: '' },
      { name: 'web', role: 'admin', source: 'a', version: 'v1.3.0', status: 'drift', why: '' },
    );
    m.update(round([r], { digests: new Map([['site-a', { web: 'sha256:aaaa' }]]) }));
    expect(series(await m.metrics(), 'service_release_artifact_info').slice(2)).toEqual([
      'service_release_artifact_info{deployment="site-a",artifact="web",version="v1.4.0",digest="sha256:aaaa"} 1',
      'service_release_artifact_info{deployment="site-a",artifact="admin",version="v1.3.0",digest="none"} 1',
    ]);
  });

  it('exports versions, in step and skew, and replaces a version rather than adding one', async () => {
    const m = new WatchMetrics();
    m.update(round([report('site-a', 'v1.4.0', 0)]));
    let text = await m.metrics();
    expect(series(text, 'service_release_in_step')).toEqual([
      'service_release_in_step{deployment="site-a"} 1',
    ]);
    expect(series(text, 'service_release_skew_status')).toEqual([
      'service_release_skew_status{deployment="site-a",pair="worker-api"} 0',
    ]);
    expect(series(text, 'service_release_round_duration_seconds')).toEqual([
      'service_release_round_duration_seconds 0.25',
    ]);

    m.update(round([report('site-a', 'v1.3.0', 1)]));
    text = await m.metrics();
    expect(series(text, 'service_release_artifact_info')).toEqual([
      'service_release_artifact_info{deployment="site-a",artifact="api",version="v1.4.0",digest="none"} 1',
      'service_release_artifact_info{deployment="site-a",artifact="worker",version="v1.3.0",digest="none"} 1',
    ]);
    expect(series(text, 'service_release_in_step')).toEqual([
      'service_release_in_step{deployment="site-a"} 0',
    ]);
    expect(series(text, 'service_release_skew_status')[0]).toMatch(/ 2$/);
  });

  it('drops the version of an unreachable artifact and counts failures by reason', async () => {
    const m = new WatchMetrics();
    m.update(round([report('site-a', 'v1.4.0', 0)]));
    m.update(
      round([report('site-a', undefined, 3)], {
        failures: [{ deployment: 'site-a', artifact: 'worker', reason: 'refused' }],
        complete: false,
      }),
    );
    const text = await m.metrics();
    expect(series(text, 'service_release_artifact_info')).toHaveLength(1);
    expect(series(text, 'service_release_skew_status')).toEqual([]);
    expect(text).toContain(
      'service_release_probe_failures_total{deployment="site-a",artifact="worker",reason="refused"} 1',
    );
    expect(text).toContain('service_release_rounds_total{result="cut_short"} 1');
    expect(series(text, 'service_release_last_success_timestamp_seconds')).toEqual([
      'service_release_last_success_timestamp_seconds 0',
    ]);
  });

  it('bounds and cleans label values a hostile server sends', async () => {
    const m = new WatchMetrics();
    m.update(round([report('site-a', `v1.4.0\n"}evil{${'x'.repeat(500)}`, 1)]));
    const [line] = series(await m.metrics(), 'service_release_artifact_info').filter((l) =>
      l.includes('worker'),
    );
    expect(line).not.toContain('\n');
    const version = /version="((?:[^"\\]|\\.)*)"/.exec(line!)![1]!;
    expect(version.replace(/\\(.)/g, '$1').length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
    expect(labelValue('a\u0007b\u00e9')).toBe('a_b_');
    expect(labelValue('')).toBe('none');
  });
});
