import { join } from 'node:path';
import { imageOfRole } from '../../config/artifacts.ts';
import { connectDocker } from '../../engine/docker/connect.ts';
import type { Step } from '../../pipeline/step.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
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
    const start = (artifact: 'api' | 'worker' | 'web', env?: Record<string, string>) =>
      startReleasedImage({
        store,
        artifact,
        repository: imageOfRole(ctx.config, artifact),
        tag: REHEARSAL.releaseTag,
        dir: join(ctx.workspace!, 'deploy', artifact),
        ...(env ? { env } : {}),
      });
    const api = await start('api');
    ctx.services.push(api);
    const [worker, web] = await Promise.all([start('worker'), start('web', { API_URL: api.url })]);
    ctx.services.push(worker, web);
    ctx.urls = { api: api.url, web: web.url, workerHealth: worker.url };
    ctx.notes[this.title] = `api ${api.url}, worker ${worker.url}, web ${web.url}`;
  },
};

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
