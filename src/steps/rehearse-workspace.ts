import { join } from 'node:path';
import { validateConfig } from '../config/validate.ts';
import type { Step } from '../pipeline/step.ts';
import { REHEARSAL, type RehearseContext } from '../rehearse/rehearse-context.ts';
import { gitTag, isolatedPath, makeRehearsalRepo, makeWorkspace } from '../rehearse/workspace.ts';

/** A throw-away git repository holding the reference service, tagged as the release candidate. */
export const rehearseWorkspaceStep: Step<RehearseContext> = {
  title: 'Make a git repository from the reference service',
  async run(ctx) {
    ctx.workspace = await makeWorkspace();
    const config = {
      registry: 'oci-layout:.release/oci',
      signing: { publicKey: 'keys/release-signing.pub', privateKey: 'keys/release-signing.key' },
    };
    // From here on the rehearsal works on this repository and its configuration, not the caller's.
    ctx.config = validateConfig(config, 'the rehearsal configuration');
    ctx.repo = await makeRehearsalRepo(ctx.workspace, config);
    await gitTag(ctx.repo, REHEARSAL.rcTag);
    ctx.releaseEnv = {
      PATH: await isolatedPath(ctx.workspace, []),
      HOME: join(ctx.workspace, 'home'),
      TMPDIR: ctx.env['TMPDIR'] ?? '/tmp',
      // npm's cache stays the user's: installing our archives needs nothing from it, and a
      // private cache would only slow the rehearsal down.
      npm_config_cache: ctx.env['npm_config_cache'] ?? join(ctx.env['HOME'] ?? ctx.workspace, '.npm'),
      RELEASE_SIGNING_PASSPHRASE: REHEARSAL.passphrase,
    };
    ctx.notes[this.title] = `${ctx.repo} tagged ${REHEARSAL.rcTag}`;
  },
};
