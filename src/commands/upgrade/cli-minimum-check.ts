import { cliArtifact } from '../../config/artifacts.ts';
import { RuleError } from '../../errors.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import { cliMinimumRaise } from '../../upgrade/cli-minimum.ts';
import type { UpgradeContext } from './upgrade-context.ts';

type CliMinimumContext = BaseContext &
  Pick<
    UpgradeContext,
    'tag' | 'apiUrl' | 'currentMinCli' | 'targetMinCli' | 'requireCliCompatible' | 'cliChange'
  >;

/**
 * Does the target raise `min_cli_version`? A warning with the pinned install command, or, with
 * `--require-cli-compatible`, a refusal before anything changes. Swarm and Compose alike.
 */
export function checkCliMinimum(ctx: CliMinimumContext): void {
  const change = cliMinimumRaise({
    current: ctx.currentMinCli,
    target: ctx.targetMinCli,
    tag: ctx.tag,
    cliPackage: cliArtifact(ctx.config)?.package ?? 'service-cli',
  });
  if (!change) return;
  ctx.cliChange = change;
  if (ctx.requireCliCompatible) {
    throw new RuleError('UPGRADE_CLI_INCOMPATIBLE', `refusing: ${change.message}`, {
      hint: `upgrade the CLIs first (${change.install}, or svc update --url ${ctx.apiUrl} once the API runs ${ctx.tag}), or drop --require-cli-compatible`,
    });
  }
  ctx.warnings.push(
    `${change.message}; install the matching CLI with: ${change.install} (or svc update --url ${ctx.apiUrl})`,
  );
}
