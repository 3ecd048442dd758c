import { join } from 'node:path';
import { makeBaseImage } from '../../src/build-engines/base-image.ts';
import { loadBaseIntoDocker } from '../../src/build-engines/docker/load-base.ts';
import { type DockerClient, followProgress, progressError } from '../../src/docker-client/connect.ts';
import { userCacheDir } from '../../src/files/user-cache-dir.ts';
import { readBaseImage } from '../../src/oci-image/base-image-reader.ts';
import { packTar } from '../../src/oci-image/layer.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { bundleArtifact } from '../../src/service/build/bundle.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import type { Cleanup } from './support.ts';

/**
 * A private dockerd holding `base`, a runnable node base made from this machine (nothing can be
 * pulled), and a build context with the reference worker bundled (`worker.mjs`): what the suites
 * that read workers from Docker build their images from. Stopped and removed by `cleanup`. The
 * base's layer comes from the toolkit's machine-wide cache, as `release build` takes it (gzipping
 * node costs seconds of CPU per suite otherwise).
 */
export async function startWorkerEngine(
  cleanup: Cleanup,
  base: string,
): Promise<{ engine: Dockerd; docker: DockerClient; context: string }> {
  const engine = await startDockerd();
  cleanup.add(() => engine.stop());
  const layoutDir = cleanup.tempDir('layout');
  const store = openStore(`oci-layout:${layoutDir}`, { cwd: layoutDir, env: {} });
  await makeBaseImage({
    store,
    repository: 'node-base',
    tags: ['test'],
    epoch: 0,
    cacheDir: userCacheDir(process.env),
  });
  await loadBaseIntoDocker(
    engine.docker,
    await readBaseImage(store, 'node-base', 'test', 'node-base:test'),
    base,
  );
  const context = cleanup.tempDir('context');
  await bundleArtifact('worker', join(context, 'worker.mjs'));
  return { engine, docker: engine.docker, context };
}

/** An image of the bundled worker on `base`: its version label, its env, its default command. */
export async function buildWorkerImage(
  docker: DockerClient,
  image: { base: string; context: string; tag: string; label: string; env: string; cmd: string[] },
): Promise<void> {
  const tar = await packTar(
    [
      {
        type: 'file',
        path: 'Dockerfile',
        content: [
          `FROM ${image.base}`,
          'COPY worker.mjs /app/worker.mjs',
          `LABEL org.opencontainers.image.version=${image.label}`,
          `ENV ${image.env} WORKER_HEALTH_HOST=127.0.0.1 WORKER_HEALTH_PORT=0`,
          `CMD ${JSON.stringify(image.cmd)}`,
          '',
        ].join('\n'),
      },
      { type: 'file', path: 'worker.mjs', source: join(image.context, 'worker.mjs') },
    ],
    0,
  );
  const stream = await docker.buildImage(tar as unknown as NodeJS.ReadableStream, { t: image.tag, rm: true });
  const error = progressError(await followProgress(stream));
  if (error) throw new Error(`docker build ${image.tag}: ${error}`);
}
