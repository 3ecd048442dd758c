import { Counter, Gauge, Registry } from 'prom-client';
import type { SkewGrade } from '../version/skew.ts';
import { labelValue } from './labels.ts';
import type { RoundResult } from './round.ts';

/**
 * Deployments exported at most. Each costs a handful of series (four artifacts, three pairs,
 * in_step, failures by reason); past this the rest are counted, not exported, so one config
 * mistake cannot flood the Prometheus that scrapes us.
 */
export const MAX_EXPORTED_DEPLOYMENTS = 1000;

const SKEW_VALUE: Record<SkewGrade, number> = { ok: 0, warn: 1, drift: 2 };

type Labels = Record<string, string>;

/**
 * The watch's metrics in a registry of their own (prom-client's default one would mix in whatever
 * else the process registers). Gauges are set from each round's verdicts; a series whose reading
 * went away (a version replaced, an artifact now unreachable) is removed, not left at a stale value.
 */
export class WatchMetrics {
  readonly registry = new Registry();
  private readonly artifactInfo = this.gauge(
    'service_release_artifact_info',
    'The version (and image digest, when known) each artifact of a deployment reports; always 1',
    ['deployment', 'artifact', 'version', 'digest'],
  );
  private readonly inStep = this.gauge(
    'service_release_in_step',
    '1 when every artifact of the deployment is in step by the skew policy, 0 when not or unreadable',
    ['deployment'],
  );
  private readonly skewStatus = this.gauge(
    'service_release_skew_status',
    'Each artifact against the API by the skew policy: 0 ok, 1 warn, 2 drift',
    ['deployment', 'pair'],
  );
  private readonly roundDuration = this.gauge(
    'service_release_round_duration_seconds',
    'How long the last round of probes took',
    [],
  );
  private readonly lastSuccess = this.gauge(
    'service_release_last_success_timestamp_seconds',
    'When the last round that finished within its deadline started (Unix time)',
    [],
  );
  private readonly deployments = this.gauge(
    'service_release_deployments',
    'Deployments watched, and how many are exported (at most 1000)',
    ['exported'],
  );
  private readonly probeFailures = new Counter({
    name: 'service_release_probe_failures_total',
    help: 'Probes that failed, by deployment, artifact and reason (before the flap guard)',
    labelNames: ['deployment', 'artifact', 'reason'],
    registers: [this.registry],
  });
  private readonly rounds = new Counter({
    name: 'service_release_rounds_total',
    help: 'Rounds run, by whether they finished within their deadline',
    labelNames: ['result'],
    registers: [this.registry],
  });

  /** The labels each series was last set with, to remove it when they change. */
  private readonly current = new Map<string, Labels[]>();

  /** Apply one round: set what changed, remove what went away. */
  update(round: RoundResult): void {
    const exported = round.reports.slice(0, MAX_EXPORTED_DEPLOYMENTS);
    const names = new Set<string>();
    for (const report of exported) {
      const deployment = labelValue(report.name ?? report.url);
      names.add(deployment);
      const digests = round.digests.get(report.name ?? report.url) ?? {};
      const seen = new Set<string>();
      const info: Labels[] = [];
      for (const row of report.artifacts) {
        // One series per artifact: the first reading (the one verify lists first) stands for it;
        // a role run from a shared image (a scheduler) is an artifact of its own.
        const artifact = row.role ?? row.name;
        if (seen.has(artifact) || row.version === undefined || row.status === 'unreachable') continue;
        seen.add(artifact);
        info.push({
          deployment,
          artifact: labelValue(artifact),
          version: labelValue(row.version),
          // The digest this role's own containers run (a scheduler's may differ from its worker's
          // in drift); another web client (an admin dashboard) is another image, read as its own.
          digest: labelValue(digests[artifact]),
        });
      }
      this.replace(`info ${deployment}`, this.artifactInfo, info, () => 1);
      this.inStep.set({ deployment }, report.exitCode === 0 ? 1 : 0);
      const skew = (report.skew ?? []).map((v) => ({ deployment, pair: v.pair, grade: v.grade }));
      this.replace(
        `skew ${deployment}`,
        this.skewStatus,
        skew.map(({ grade: _, ...labels }) => labels),
        (_, i) => SKEW_VALUE[skew[i]!.grade],
      );
    }
    for (const failure of round.failures) {
      const deployment = labelValue(failure.deployment);
      if (names.has(deployment))
        this.probeFailures.inc({ deployment, artifact: failure.artifact, reason: failure.reason });
    }
    this.deployments.set({ exported: 'true' }, exported.length);
    this.deployments.set({ exported: 'false' }, round.reports.length - exported.length);
    this.roundDuration.set(round.durationMs / 1000);
    this.rounds.inc({ result: round.complete ? 'complete' : 'cut_short' });
    if (round.complete) this.lastSuccess.set(round.startedAt.getTime() / 1000);
  }

  /** The text a scrape gets. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private gauge(name: string, help: string, labelNames: string[]): Gauge<string> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  /** Set `next` series of one group, removing the group's series whose labels are gone. */
  private replace(
    group: string,
    gauge: Gauge<string>,
    next: Labels[],
    value: (l: Labels, i: number) => number,
  ): void {
    const key = (l: Labels) => JSON.stringify(l);
    const keep = new Set(next.map(key));
    for (const old of this.current.get(group) ?? []) if (!keep.has(key(old))) gauge.remove(old);
    for (const [i, labels] of next.entries()) gauge.set(labels, value(labels, i));
    this.current.set(group, next);
  }
}
