import { join } from 'node:path';
import { artifactWithRole, imageOfRole } from '../../config/artifacts.ts';
import type { ImageRole } from '../../config/constants.ts';
import { connectDocker } from '../../docker-client/connect.ts';
import { readBaseImage } from '../../oci-image/base-image-reader.ts';
import type { Step } from '../../pipeline/step.ts';
import { parseStoreImageRef } from '../../registry/image-ref.ts';
import { openConfiguredStore, openStore } from '../../registry/open-store.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { startReleasedContainer } from './start-released-container.ts';
import { startReleasedImage } from './start-released-image.ts';

/**
 * Start API, worker and web on loopback from the released `vX.Y.Z` images (their `/app` layers),
 * the web client proxying `/api` to the API as it would behind one origin.
 */
export const rehearseDeployStep: Step<RehearseContext> = {
  title: 'Start the deployment on loopback (API, worker, web)',
  async run(ctx) {
    if (ctx.engine === 'docker') return deployContainers(ctx, this.title);
    const store = openConfiguredStore({ config: ctx.config, configDir: ctx.repo!, env: ctx.releaseEnv! });
    const start = async (artifact: 'api' | 'worker' | 'web', env?: Record<string, string>) =>
      startReleasedImage({
        store,
        artifact,
        repository: imageOfRole(ctx.config, artifact),
        tag: REHEARSAL.releaseTag,
        dir: join(ctx.workspace!, 'deploy', artifact),
        ...(env ? { env } : {}),
        skipLayers: await baseLayers(ctx, artifact),
      });
    const api = await start('api');
    ctx.services.push(api);
    const [worker, web] = await Promise.all([start('worker'), start('web', { API_URL: api.url })]);
    ctx.services.push(worker, web);
    ctx.urls = { api: api.url, web: web.url, workerHealth: worker.url };
    ctx.notes[this.title] = `api ${api.url}, worker ${worker.url}, web ${web.url}`;
  },
};

/**
 * The digests of the layers an image's base gives it: node and its libraries, no `/app` file.
 * Unpacking them (the node binary, for each of three images) was most of this step's time.
 */
async function baseLayers(ctx: RehearseContext, role: ImageRole): Promise<Set<string>> {
  const artifact = artifactWithRole(ctx.config, role);
  if (!artifact) return new Set();
  const ref = parseStoreImageRef(artifact.base);
  const store = openStore(ref.store, { cwd: ctx.repo!, env: ctx.releaseEnv! });
  const base = await readBaseImage(store, ref.repository, ref.reference, ref.text);
  return new Set(base.layers.map((layer) => layer.digest));
}

/** Docker: the released `vX.Y.Z` images pulled from the registry and run as containers. */
async function deployContainers(ctx: RehearseContext, title: string): Promise<void> {
  const docker = connectDocker(ctx.env);
  const image = (artifact: 'api' | 'worker' | 'web') =>
    `${ctx.config.registry}/${imageOfRole(ctx.config, artifact)}:${REHEARSAL.releaseTag}`;
  const start = async (artifact: 'api' | 'worker' | 'web', env?: Record<string, string>) => {
    const started = await startReleasedContainer({
      docker,
      artifact,
      image: image(artifact),
      ...(env ? { env } : {}),
    });
    ctx.containers.push(started);
    return started;
  };
  const api = await start('api');
  const [worker, web] = await Promise.all([start('worker'), start('web', { API_URL: api.url })]);
  ctx.urls = { api: api.url, web: web.url, workerHealth: worker.url };
  ctx.notes[title] = `containers: api ${api.url}, worker ${worker.url}, web ${web.url}`;
}
