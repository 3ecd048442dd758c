import type { Step } from '../pipeline/step.ts';
import type { RehearseContext } from '../rehearse/rehearse-context.ts';
import { releaseJson } from '../rehearse/release-cli.ts';

interface BuildJson {
  engine: string;
  cli: { sha256: string } | null;
  images: Record<string, { digest: string | null }>;
}

/** `release build --engine oci`: the CLI archive and three images, daemonless, into the layout. */
export const rehearseBuildStep: Step<RehearseContext> = {
  title: 'Build every artifact (daemonless) into the OCI layout',
  async run(ctx) {
    const { json } = await releaseJson<BuildJson>(['build', '--engine', 'oci'], {
      cwd: ctx.repo!,
      env: ctx.releaseEnv!,
    });
    const images = Object.entries(json.images)
      .map(([name, image]) => `${name} ${image.digest?.slice(0, 19)}`)
      .join(', ');
    ctx.notes[this.title] = `engine ${json.engine}; ${images}; cli sha256 ${json.cli?.sha256.slice(0, 12)}`;
  },
};
