import type { BuildTiming } from '../../build/build-timing.ts';
import { imageOfRole } from '../../config/artifacts.ts';
import { IMAGE_ROLES } from '../../config/constants.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { startOldCliInstall } from './rehearse-cli-steps.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';

interface BuildJson {
  engine: string;
  buildTag: string;
  cli: { sha256: string; signature: string | null } | null;
  images: Record<string, { digest: string | null }>;
  timing: BuildTiming;
}

/** `release build`: the CLI archive and three images (daemonless into the layout, or Docker + push). */
export const rehearseBuildStep: Step<RehearseContext> = {
  title: 'Build every artifact',
  async run(ctx) {
    // oci writes straight into the configured store; docker builds in the engine and pushes.
    const args =
      ctx.engine === 'docker' ? ['build', '--engine', 'docker', '--push'] : ['build', '--engine', 'oci'];
    const { json } = await releaseJson<BuildJson>(args, { cwd: ctx.repo!, env: ctx.releaseEnv! });
    const images = Object.entries(json.images)
      .map(([name, image]) => `${name} ${image.digest?.slice(0, 19)}`)
      .join(', ');
    const signed = json.cli?.signature ? `, signed (${json.cli.signature})` : '';
    // Only promotion writes channel tags: the build left its images under its build tag alone.
    const store = openConfiguredStore({ config: ctx.config, configDir: ctx.repo!, env: ctx.releaseEnv! });
    for (const role of IMAGE_ROLES) {
      const tagged = await store.resolve(imageOfRole(ctx.config, role), REHEARSAL.rcTag);
      if (tagged) {
        throw new RuleError(
          'REHEARSAL_BUILD_WROTE_TAG',
          `release build wrote ${imageOfRole(ctx.config, role)}:${REHEARSAL.rcTag}; only promotion may write a version tag`,
        );
      }
    }
    // The old CLI the gate step shows blocked is made from this build's archive: start it now.
    startOldCliInstall(ctx);
    ctx.notes[this.title] =
      `engine ${json.engine}; ${images} under ${json.buildTag} (no version tag yet); cli sha256 ${json.cli?.sha256.slice(0, 12)}${signed}`;
    // Where the build's time went, per artifact and sub-step: the report shows it under the step.
    ctx.breakdowns[this.title] = json.timing;
  },
};
