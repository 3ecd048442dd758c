import { ExternalError, RuleError } from '../../errors.ts';
import type { UpgradeOutcome } from '../../upgrade/upgrade-outcome.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

/**
 * Print a finished upgrade's report (one `--json` document, or the lines) and its warnings, then
 * end with its outcome: 0 returns; 1 (rolled back) and 3 (the rollback failed) throw an error
 * marked as reported, so the exit code is set and nothing is printed twice.
 */
export function finishUpgrade(
  ctx: UpgradeRunContext,
  outcome: UpgradeOutcome,
  report: { json: () => unknown; lines: () => string[] },
): void {
  if (ctx.json) printJson(report.json());
  else for (const line of report.lines()) printLine(line);
  for (const text of ctx.warnings) warn(text);
  if (outcome.exitCode === 0) return;
  const error =
    outcome.exitCode === 3
      ? new ExternalError('UPGRADE_ROLLBACK_FAILED', outcome.verdict)
      : new RuleError('UPGRADE_ROLLED_BACK', outcome.verdict);
  throw Object.assign(error, { reported: true });
}
