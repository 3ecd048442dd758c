import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ImageArtifact } from '../config/schema.ts';
import type { StagedArtifact } from '../engine/engine.ts';
import type { LayerEntry } from '../engine/oci/layer.ts';
import { buildWeb } from '../service/web/build/build-web.ts';
import { packageRoot } from '../shared/package-root.ts';
import { bundleArtifact } from './bundle.ts';
import { APP_DIR } from './image-specs.ts';

export type { StagedArtifact };

/** templates/docker/<artifact>.Dockerfile of the toolkit. */
export function dockerfileOf(artifact: ImageArtifact): string {
  return join(packageRoot(), `templates/docker/${artifact}.Dockerfile`);
}

/**
 * Put together what goes into one image, in `dir` (emptied first): the bundle as `app/main.mjs`;
 * for the api the CLI archive beside it (`app/service-cli.tar.gz`, where the API looks by
 * default); for the web the client built with the version (`app/web/`). The Dockerfile is copied
 * in so the directory is a complete docker build context.
 */
export async function stageArtifact(options: {
  artifact: ImageArtifact;
  dir: string;
  tag: string;
  cliArchive?: string;
}): Promise<StagedArtifact> {
  const { artifact, dir } = options;
  await rm(dir, { recursive: true, force: true });
  const app = join(dir, 'app');
  await mkdir(app, { recursive: true });
  await bundleArtifact(artifact, join(app, 'main.mjs'));
  if (artifact === 'api') {
    if (!options.cliArchive) throw new Error('the api image needs the CLI archive');
    await copyFile(options.cliArchive, join(app, 'service-cli.tar.gz'));
  }
  if (artifact === 'web') await buildWeb({ version: options.tag, outDir: join(app, 'web') });
  await copyFile(dockerfileOf(artifact), join(dir, 'Dockerfile'));
  return { artifact, dir, entries: await entriesOf(app) };
}

async function entriesOf(root: string): Promise<LayerEntry[]> {
  const entries: LayerEntry[] = [{ type: 'dir', path: APP_DIR }];
  for (const item of await readdir(root, { recursive: true, withFileTypes: true })) {
    const full = join(item.parentPath, item.name);
    const path = `${APP_DIR}/${relative(root, full)}`;
    if (item.isDirectory()) entries.push({ type: 'dir', path });
    else if (item.isFile()) entries.push({ type: 'file', path, source: full });
  }
  return entries;
}
