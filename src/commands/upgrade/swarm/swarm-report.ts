import { table } from '../../../console/table.ts';
import { nodeTrouble, tagOf } from '../../../upgrade/swarm/swarm-node-report.ts';
import { outcomeHead, outcomeLines, outcomeResult, outcomeTail, shortDigest } from '../report-parts.ts';
import { MIN_CLI_LABEL } from '../resolve-targets-step.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

/** The plan, what happened, and the verdict, for a person. */
export function renderSwarmUpgrade(ctx: SwarmUpgradeContext): string[] {
  const plan = ctx.plan!;
  const lines = [`plan: upgrade to ${plan.tag}${ctx.dryRun ? ' (dry run)' : ''}`];
  lines.push(
    ...table(
      ['PHASE', 'ROLE', 'SERVICE', 'RUNNING', 'VERSION', 'TARGET', 'ORDER'],
      plan.phases.flatMap((phase, i) =>
        phase.map((s) => [
          String(i + 1),
          s.role,
          s.name,
          shortDigest(s.from.digest),
          s.from.version ?? '?',
          s.changes ? `${plan.tag} ${shortDigest(s.to.digest)}` : 'already there',
          s.changes ? `${s.order} (${s.orderReason})` : '-',
        ]),
      ),
    ).map((line) => `  ${line}`),
  );
  if (ctx.cliChange) lines.push(`  note: ${ctx.cliChange.message}; pinned install: ${ctx.cliChange.install}`);
  else if (plan.services.some((s) => s.role === 'api') && ctx.targetMinCli === undefined) {
    lines.push(
      `  note: the ${plan.tag} API image does not label its min_cli_version (${MIN_CLI_LABEL}): read after the upgrade`,
    );
  }
  if (ctx.dryRun) {
    lines.push('dry run: no service was changed');
    return lines;
  }
  lines.push(...outcomeLines(ctx));
  const trouble = nodeTrouble(ctx.nodes ?? []);
  if (ctx.nodes && (ctx.failure || trouble.length > 0) && ctx.nodes.length > 1) {
    lines.push('', 'per node:');
    lines.push(
      ...table(
        ['NODE', 'ADDRESS', 'STATE', 'TASK', 'SERVICE', 'IMAGE', 'TASK STATE'],
        ctx.nodes.flatMap((n) =>
          (n.tasks.length ? n.tasks : [undefined]).map((t) => [
            n.node,
            n.addr || '-',
            n.state,
            t?.task ?? '-',
            t?.service ?? '-',
            t ? tagOf(t.image) : '-',
            t
              ? `${t.state}${t.desired !== 'running' ? ` (wanted ${t.desired})` : ''}${t.error ? `: ${t.error}` : ''}`
              : '-',
          ]),
        ),
      ).map((line) => `  ${line}`),
    );
    for (const line of trouble) lines.push(`  ${line}`);
  }
  lines.push('', ctx.outcome!.verdict);
  return lines;
}

/** One JSON document: the plan, the timeline, the failure, each rollback and the verdict. */
export function swarmUpgradeJson(ctx: SwarmUpgradeContext) {
  const plan = ctx.plan!;
  return {
    ...outcomeHead(ctx, plan.tag, ctx.outcome!),
    plan: {
      upToDate: plan.upToDate,
      phases: plan.phases.map((phase) =>
        phase.map((s) => ({
          role: s.role,
          service: s.name,
          from: s.from,
          to: s.to,
          changes: s.changes,
          order: s.order,
          orderReason: s.orderReason,
        })),
      ),
    },
    ...outcomeResult(ctx),
    nodes: ctx.nodes ?? [],
    ...outcomeTail(ctx),
  };
}
