import type { Step } from '../../pipeline/step.ts';
import type { RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';

interface BuildJson {
  engine: string;
  cli: { sha256: string; signature: string | null } | null;
  images: Record<string, { digest: string | null }>;
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
    ctx.notes[this.title] =
      `engine ${json.engine}; ${images}; cli sha256 ${json.cli?.sha256.slice(0, 12)}${signed}`;
  },
};
