import { join } from 'node:path';
import type { Step } from '../pipeline/step.ts';
import { openStore } from '../registry/open-store.ts';
import { startReleasedImage } from '../rehearse/deployment.ts';
import { REHEARSAL, type RehearseContext } from '../rehearse/rehearse-context.ts';

/**
 * Start API, worker and web on loopback from the released `vX.Y.Z` images (their `/app` layers),
 * the web client proxying `/api` to the API as it would behind one origin.
 */
export const rehearseDeployStep: Step<RehearseContext> = {
  title: 'Start the deployment on loopback (API, worker, web)',
  async run(ctx) {
    const store = openStore(ctx.config.registry, { cwd: ctx.repo!, env: ctx.releaseEnv! });
    const start = (artifact: 'api' | 'worker' | 'web', env?: Record<string, string>) =>
      startReleasedImage({
        store,
        artifact,
        repository: ctx.config.artifacts[artifact].image,
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
