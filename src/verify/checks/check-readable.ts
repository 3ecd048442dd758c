import {
  cliInstall,
  cliProgram,
  displayTag,
  type FixContext,
  fixForUnreachable,
  readingLabel,
} from '../fixes.ts';
import type { ArtifactName, Finding, ProbeResult } from '../types.ts';

/** Probes that could not read their artifact, and asked-for artifacts nothing was found of. */
export function checkReadable(results: ProbeResult[], probed: ArtifactName[], ctx: FixContext): Finding[] {
  const findings: Finding[] = results
    .filter((r) => r.error !== undefined)
    .map((r) => ({
      code: r.name === 'cli' ? 'CLI_BROKEN' : `${r.name.toUpperCase()}_UNREACHABLE`,
      message: `${readingLabel(r)}: could not read the version at ${r.source}: ${r.error}`,
      fix: fixForUnreachable(r.name, ctx, r.source, r.name === 'web' ? r.role : undefined),
      // A broken local svc is drift the operator can fix, not an outside system failing.
      severity: r.name === 'cli' ? 'drift' : 'unreachable',
      artifact: r.name,
      source: r.source,
    }));
  if (probed.includes('cli') && !results.some((r) => r.name === 'cli')) {
    findings.push({
      code: 'CLI_NOT_FOUND',
      message: `no \`${cliProgram(ctx)}\` on PATH: the operator CLI is not installed`,
      fix: `${cliInstall(ctx)} (or pass --no-cli to leave the CLI out)`,
      severity: 'drift',
      artifact: 'cli',
    });
  }
  const workers = results.filter((r) => r.name === 'worker' && r.version !== undefined);
  if (workers.length > 0 && workers.every((r) => r.running === false)) {
    findings.push({
      code: 'WORKER_NOT_RUNNING',
      message: `every worker container found is stopped (${workers.map((w) => w.source).join(', ')})`,
      fix: `start the worker at ${displayTag(ctx.tag)} (${ctx.images.worker}:${displayTag(ctx.tag)})`,
      severity: 'unreachable',
      artifact: 'worker',
    });
  }
  const anyRunning = workers.some((w) => w.running !== false);
  for (const stopped of workers.filter((r) => r.running === false && !r.finished && anyRunning)) {
    const [kind, id] = stopped.source.split(' ');
    findings.push({
      code: 'WORKER_STOPPED',
      message: `${stopped.source} (${stopped.version}) is not running; it serves no work but may mislead whoever reads the engine`,
      fix: kind === 'service' ? `docker service rm ${id}` : `docker rm ${id}`,
      severity: 'notice',
      artifact: 'worker',
      source: stopped.source,
    });
  }
  return findings;
}
