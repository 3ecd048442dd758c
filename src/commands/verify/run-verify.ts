import { given } from '../../deployment-targets/deployment-engine-entry.ts';
import { engineFlags } from '../../deployment-targets/deployment-targets.ts';
import type { VerifyFlags } from './verify-flags.ts';
import { verifyRun } from './verify-setup.ts';

/**
 * `release verify`, one mode per file: deployment files offline (`--manifests`), verification
 * summaries (`--vsa`), every configured deployment (`--all`), a release in the registry alone
 * (`--registry` and no deployment), or one live deployment. The first
 * flag that names a mode wins; each mode refuses the flags it does not take. A mode is loaded only
 * when chosen, so `--manifests` never pays for the probes.
 */
export async function runVerify(flags: VerifyFlags): Promise<void> {
  // Before the shared setup: the files carry the release, so `--expect` is the mode's own to read.
  if (flags.manifests !== undefined) return (await import('./verify-manifests.ts')).verifyManifests(flags);
  const run = await verifyRun(flags);
  if (flags.vsa !== undefined) return (await import('./verify-summaries.ts')).verifySummaries(run);
  if (flags.all) return (await import('./verify-all.ts')).verifyAll(run);
  // A store and no deployment named: the release in the registry alone.
  if (flags.registry !== undefined && !namesDeployment(flags))
    return (await import('./verify-release.ts')).verifyRelease(run);
  return (await import('./verify-one.ts')).verifyOne(run);
}

/** Whether the flags name a live deployment: its API's URL, or any engine's flag. */
function namesDeployment(flags: VerifyFlags): boolean {
  return [flags.url, ...engineFlags().map((f) => flags[f])].some(given);
}
