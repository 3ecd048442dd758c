import { verdictLine } from '../verify/report.ts';
import type { ArtifactStatus } from '../verify/types.ts';
import type { RoundResult } from './round.ts';

/** What the status page shows, and what it fetches to refresh itself (`GET /status.json`). */
export interface StatusDocument {
  /** No round has finished yet. */
  pending: boolean;
  intervalMs: number;
  lastRound: { startedAt: string; durationMs: number; complete: boolean } | null;
  summary: { total: number; inStep: number; drift: number; unreachable: number };
  deployments: {
    name: string;
    url: string;
    inStep: boolean;
    /** `in step`, `drift`, `unreachable` (verify's exit code 0, 1, 3). */
    state: 'in step' | 'drift' | 'unreachable';
    verdict: string;
    artifacts: {
      name: string;
      version: string | null;
      status: ArtifactStatus;
      why: string;
      source: string;
    }[];
    findings: { code: string; severity: string; message: string; fix: string; rule: string | null }[];
  }[];
}

const STATE = { 0: 'in step', 1: 'drift', 3: 'unreachable' } as const;

export function statusDocument(round: RoundResult | undefined, intervalMs: number): StatusDocument {
  const reports = round?.reports ?? [];
  const count = (code: number) => reports.filter((r) => r.exitCode === code).length;
  return {
    pending: round === undefined,
    intervalMs,
    lastRound: round
      ? {
          startedAt: round.startedAt.toISOString(),
          durationMs: Math.round(round.durationMs),
          complete: round.complete,
        }
      : null,
    summary: { total: reports.length, inStep: count(0), drift: count(1), unreachable: count(3) },
    deployments: reports.map((r) => ({
      name: r.name ?? r.url,
      url: r.url,
      inStep: r.inStep,
      state: STATE[r.exitCode],
      verdict: verdictLine(r),
      artifacts: r.artifacts.map((a) => ({
        name: a.name,
        // A role run from a shared image (a scheduler): its cell names it.
        role: a.role ?? null,
        version: a.version ?? null,
        status: a.status,
        why: a.why,
        source: a.source,
        detail: a.detail ?? null,
      })),
      findings: r.findings.map((f) => ({
        code: f.code,
        severity: f.severity,
        message: f.message,
        fix: f.fix,
        rule: f.rule ? `${f.rule.id}: ${f.rule.reason}` : null,
      })),
    })),
  };
}
