import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from '../web/build/build-web.ts';
import { bundleArtifact } from './bundle.ts';

export type ReferenceImage = 'api' | 'worker' | 'web';

/** templates/docker/<artifact>.Dockerfile of the toolkit: the reference images' Dockerfiles. */
export function dockerfileOf(artifact: ReferenceImage): string {
  return fileURLToPath(new URL(`../../../templates/docker/${artifact}.Dockerfile`, import.meta.url));
}

/**
 * Lay out what goes into one reference image, in `dir` (emptied first): the bundle as
 * `app/main.mjs`; for the web the client built with the version (`app/web/`); and the Dockerfile,
 * so the directory is a complete docker build context. `release build` adds the CLI archive to
 * the api image itself (the api artifact's `cliArchive`).
 */
export async function stageReferenceImage(options: {
  artifact: ReferenceImage;
  dir: string;
  version: string;
}): Promise<void> {
  const { artifact, dir } = options;
  await rm(dir, { recursive: true, force: true });
  const app = join(dir, 'app');
  await mkdir(app, { recursive: true });
  await bundleArtifact(artifact, join(app, 'main.mjs'));
  if (artifact === 'web') await buildWeb({ version: options.version, outDir: join(app, 'web') });
  await copyFile(dockerfileOf(artifact), join(dir, 'Dockerfile'));
}
