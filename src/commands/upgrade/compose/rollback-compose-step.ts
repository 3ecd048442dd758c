import { rm } from 'node:fs/promises';
import { COMPOSE_CALL_MIN_MS, runCompose } from '../../../deployment-engines/compose/compose-cli.ts';
import { writeFileAtomically } from '../../../files/atomic-write.ts';
import type { Step } from '../../../pipeline/step.ts';
import { failureOf } from '../../../upgrade/deployment-types.ts';
import type { RestoreResult } from '../../../upgrade/upgrade-outcome.ts';
import { record } from '../upgrade-context.ts';
import { type ComposeUpgradeContext, composeFiles } from './compose-context.ts';
import {
  describeServices,
  readContainers,
  waitComposeConverged,
  waitComposeVersions,
} from './compose-wait.ts';

/**
 * Put the project back as it was: the previous override (or none), then `up -d --no-deps` of
 * every service this run recreated, in one call, and the wait until each runs its previous digest
 * and reports its previous version. A service that does not come back is reported with the state
 * of its containers; the others are still put back.
 */
export const rollbackComposeStep: Step<ComposeUpgradeContext> = {
  title: 'Roll back every touched service',
  writes: true,
  skip: (ctx) => (ctx.failure ? false : 'nothing failed'),
  async run(ctx, io) {
    const deadline = Date.now() + ctx.rollbackTimeoutMs;
    const moves = ctx.plan!.services.filter((m) => ctx.touched.has(m.service));
    try {
      if (ctx.overrideWritten) {
        if (ctx.previousOverride === undefined) await rm(ctx.overridePath, { force: true });
        else await writeFileAtomically(ctx.overridePath, ctx.previousOverride);
        record(ctx, ctx.previousOverride === undefined ? 'override removed' : 'previous override put back');
      }
    } catch (error) {
      ctx.restores = moves.map((m) =>
        failed(ctx, m.service, m.role, `the override could not be put back: ${failureOf(error).reason}`),
      );
      return;
    }
    if (moves.length === 0) return;
    const names = moves.map((m) => m.service);
    try {
      await runCompose(
        ctx.cli,
        {
          files: composeFiles(ctx, ctx.previousOverride !== undefined),
          name: ctx.project.name,
          dir: ctx.project.dir,
        },
        ['up', '-d', '--no-deps', ...names],
        { env: ctx.env, timeoutMs: Math.max(COMPOSE_CALL_MIN_MS, deadline - Date.now()) },
      );
      record(ctx, `rollback: up -d --no-deps ${names.join(' ')}`);
      await waitComposeConverged(
        ctx,
        moves.map((m) => ({
          service: m.service,
          // The one digest it ran before; several or none known: whatever the files now say.
          digest: m.from.digests.length === 1 && m.from.digests[0] !== '?' ? m.from.digests[0] : undefined,
          replicas: m.replicas,
          oneShot: m.oneShot,
        })),
        deadline,
        { tolerate: true, progress: io.progress },
      );
      await waitComposeVersions(
        ctx,
        moves.flatMap((m) => {
          const version =
            m.role === 'api' && m.service === ctx.serviceNames.api ? ctx.fromTag : m.from.versions[0];
          const known =
            version !== undefined && version !== '?' && (m.role === 'api' || m.from.versions.length === 1);
          return !m.oneShot && known ? [{ service: m.service, role: m.role, version: version! }] : [];
        }),
        deadline,
        io.progress,
      );
      ctx.restores = moves.map((m) => ({
        role: m.role,
        name: m.service,
        status: 'restored' as const,
        detail: `runs ${m.from.image}${m.from.versions.length ? ` (${m.from.versions.join(', ')})` : ''} again`,
      }));
      record(ctx, `rollback: ${names.join(', ')} back on their previous images`);
    } catch (error) {
      const why = failureOf(error).reason;
      const containers = await readContainers(ctx).catch(() => []);
      ctx.restores = moves.map((m) =>
        failed(ctx, m.service, m.role, `${why}; now ${describeServices(containers, [m.service])}`),
      );
    }
    io.progress(
      `${ctx.restores.filter((r) => r.status === 'restored').length} of ${moves.length} service(s) back`,
    );
  },
};

function failed(
  ctx: ComposeUpgradeContext,
  name: string,
  role: RestoreResult['role'],
  detail: string,
): RestoreResult {
  record(ctx, `${name}: rollback failed: ${detail}`);
  return { role, name, status: 'failed', detail };
}
