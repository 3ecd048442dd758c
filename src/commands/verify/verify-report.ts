import { table } from '../../console/table.ts';
import { ExternalError, RuleError } from '../../errors.ts';
import type { FleetReport } from '../../verify/fleet.ts';
import { renderFindings, renderReport, reportJson } from '../../verify/report.ts';
import type { DeploymentReport } from '../../verify/types.ts';
import { printJson, printLine, warn } from '../output.ts';
import { summaryLine } from './sign-summaries.ts';
import type { VerifyContext } from './verify-context.ts';

/** The report, its summaries and warnings, as `--json` or lines: what one deployment's run prints. */
export function printDeploymentReport(ctx: VerifyContext, out: string | undefined): DeploymentReport {
  const report = ctx.report!;
  if (ctx.json)
    printJson({
      ...reportJson(report),
      ...(ctx.summaries ? { summaries: ctx.summaries } : {}),
      ...(ctx.warnings.length ? { warnings: ctx.warnings } : {}),
    });
  else {
    for (const line of renderReport(report)) printLine(line);
    for (const s of ctx.summaries ?? []) printLine(summaryLine(s, out));
  }
  for (const text of ctx.warnings) warn(text);
  return report;
}

/** Several deployments side by side, as `--json` or one table and each one's findings. */
export function printFleetReport(fleet: FleetReport, json: boolean): void {
  if (json) printJson(fleetJson(fleet));
  else for (const line of renderFleet(fleet)) printLine(line);
}

/** A fleet's code: the worst of its deployments' (3 over 1 over 0). */
export function worstCode(codes: (0 | 1 | 3)[]): 0 | 1 | 3 {
  return codes.includes(3) ? 3 : codes.includes(1) ? 1 : 0;
}

/** The report is already printed: leave only the exit code to the command line. */
export function finish(exitCode: 0 | 1 | 3, message: string): void {
  if (exitCode === 0) return;
  const error =
    exitCode === 3
      ? new ExternalError('VERIFY_UNREACHABLE', message)
      : new RuleError('VERIFY_DRIFT', message);
  throw Object.assign(error, { reported: true });
}

function fleetJson(fleet: FleetReport) {
  return {
    inStep: fleet.inStep,
    exitCode: fleet.exitCode,
    summary: fleet.summary,
    elapsedMs: fleet.elapsedMs,
    deployments: fleet.deployments.map(reportJson),
  };
}

function renderFleet(fleet: FleetReport): string[] {
  const status = (d: DeploymentReport) =>
    d.exitCode === 0 ? 'in step' : d.exitCode === 3 ? 'UNREACHABLE' : 'DRIFT';
  const lines = table(
    ['DEPLOYMENT', 'API', 'VERSION', 'STATUS', 'FINDINGS'],
    fleet.deployments.map((d) => [
      d.name ?? d.url,
      d.url,
      d.artifacts.find((a) => a.name === 'api')?.version ?? '-',
      status(d),
      [...new Set(d.findings.filter((f) => f.severity !== 'notice').map((f) => f.code))].join(', '),
    ]),
  );
  for (const d of fleet.deployments.filter((d) => d.findings.length > 0)) {
    lines.push('', `${d.name ?? d.url} (${d.url}):`, ...renderFindings(d.findings, '  '));
  }
  const { total, inStep, drift, unreachable } = fleet.summary;
  lines.push(
    '',
    `${total} deployments checked in ${(fleet.elapsedMs / 1000).toFixed(2)} s: ${inStep} in step, ${drift} drift, ${unreachable} unreachable`,
  );
  return lines;
}
