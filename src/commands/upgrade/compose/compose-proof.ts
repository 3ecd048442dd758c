import type { Proof } from '../../../upgrade/upgrade-outcome.ts';
import { verifyChecks } from '../verify-checks.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';

/** The verify checks of the project (`release verify --compose`; verify-checks.ts). */
export function proveComposeInStep(ctx: ComposeUpgradeContext, expect: string | undefined): Promise<Proof> {
  return verifyChecks(ctx, { engine: { host: ctx.dockerHost, composeProject: ctx.project.name } }, expect);
}
