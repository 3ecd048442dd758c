import { cliArtifact } from '../../config/artifacts.ts';
import { RuleError } from '../../errors.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import { type CliMinimumChange, cliMinimumRaise } from '../../upgrade/cli-minimum.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

type CliMinimumContext = BaseContext &
  Pick<
    UpgradeRunContext,
    'tag' | 'apiUrl' | 'currentMinCli' | 'targetMinCli' | 'requireCliCompatible' | 'cliChange'
  >;

/**
 * Does the target raise `min_cli_version`? A warning with the pinned install command, or, with
 * `--require-cli-compatible`, a refusal before anything changes. Every engine alike.
 */
export function checkCliMinimum(ctx: CliMinimumContext): void {
  const change = raiseOver(ctx, ctx.targetMinCli);
  if (!change) return;
  if (ctx.requireCliCompatible) {
    throw new RuleError('UPGRADE_CLI_INCOMPATIBLE', `refusing: ${change.message}`, {
      hint: `upgrade the CLIs first (${change.install}, or svc update --url ${ctx.apiUrl} once the API runs ${ctx.tag}), or drop --require-cli-compatible`,
    });
  }
  warnOf(ctx, change);
}

/**
 * After a run that changed nothing wrong: the target image did not say its minimum, the API it
 * now runs does (`upgradedMinCli`). A rise is a warning with the pinned install command; the
 * upgrade is done, so `--require-cli-compatible` can no longer refuse it.
 */
export function raiseCliMinimumAfterRun(
  ctx: CliMinimumContext & Pick<UpgradeRunContext, 'failure' | 'upgradedMinCli'>,
): void {
  if (ctx.failure || ctx.dryRun || ctx.cliChange) return;
  const change = raiseOver(ctx, ctx.upgradedMinCli);
  if (change) warnOf(ctx, change);
}

/** The rise from the running API's minimum to `target`, kept on the context; undefined for none. */
function raiseOver(ctx: CliMinimumContext, target: string | undefined): CliMinimumChange | undefined {
  const change = cliMinimumRaise({
    current: ctx.currentMinCli,
    target,
    tag: ctx.tag,
    cliPackage: cliArtifact(ctx.config)?.package ?? 'service-cli',
  });
  if (change) ctx.cliChange = change;
  return change;
}

function warnOf(ctx: CliMinimumContext, change: CliMinimumChange): void {
  ctx.warnings.push(
    `${change.message}; install the matching CLI with: ${change.install} (or svc update --url ${ctx.apiUrl})`,
  );
}
