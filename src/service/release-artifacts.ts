import { join } from 'node:path';
import { packageRoot } from '../files/package-root.ts';
import { MIN_CLI_VERSION } from './api/min-cli-version.ts';

/**
 * The reference service's build command (run with this node, without a shell). Found from the
 * package root: this module runs from src/ in a checkout and from lib/ once compiled.
 */
const BUILD_SCRIPT = join(packageRoot(), 'src/service/build/reference-build.js');

const NODE = '/usr/local/bin/node';
const APP = '/app';
/** nobody: the services need no privileges and write nothing. */
const USER = '65534:65534';

/**
 * The reference service (API, worker, web client, svc) as `release.config.ts` declares it: an
 * ordinary user of `artifacts`, built by the generic path. Each image's build command stages its
 * files under `dist/images/<name>/` (the bundle as `app/main.mjs`, the web client in `app/web/`,
 * the Dockerfile beside them); the daemonless recipe copies `app/` to `/app`, the docker engine
 * builds that folder with its Dockerfile. `release build` adds the CLI archive to the API image.
 * Listening on 0.0.0.0 inside a container is what makes a published port reachable. (A plain
 * object, typed by `defineConfig` where it is used: what ships imports nothing of the toolkit.)
 */
export function referenceArtifacts() {
  const image = (name: 'api' | 'worker' | 'web', env: Record<string, string>, port: string) => ({
    image: `service-${name}`,
    build: { command: [process.execPath, BUILD_SCRIPT, 'image', name, `dist/images/${name}`] },
    context: `dist/images/${name}`,
    dockerfile: `dist/images/${name}/Dockerfile`,
    files: [{ from: `dist/images/${name}/app`, to: APP }],
    workdir: APP,
    entrypoint: [NODE],
    cmd: [`${APP}/main.mjs`],
    env,
    user: USER,
    exposedPorts: [`${port}/tcp`],
  });
  return {
    // The CLI archive goes where `cliArchive`'s defaults put it: `service-cli.tar.gz` at the root
    // of the docker context (the Dockerfile copies it), `/app/service-cli.tar.gz` in an oci image.
    api: {
      ...image(
        'api',
        { SERVICE_CLI_ARCHIVE: `${APP}/service-cli.tar.gz`, HOST: '0.0.0.0', PORT: '8080' },
        '8080',
      ),
      // What the reference API serves as min_cli_version: build and promote hold its CLI to it.
      minCliVersion: MIN_CLI_VERSION,
      // The reference API serves its CLI's download (`svc update`), so it asks for the archive.
      serveCli: true,
    },
    worker: image('worker', { WORKER_HEALTH_HOST: '0.0.0.0', WORKER_HEALTH_PORT: '8081' }, '8081'),
    web: {
      ...image('web', { WEB_ROOT: `${APP}/web`, HOST: '0.0.0.0', PORT: '8080' }, '8080'),
      // Where the client carries its version: the document the API's gate reads and the <meta> its
      // bundle reads at run time. Declared like any service's, so a release made from an rc
      // re-writes these two files in the version layer and keeps every code file as the rc's.
      versionFiles: [
        { path: `${APP}/web/index.html`, format: 'html-meta' as const, name: 'service-client-version' },
        { path: `${APP}/web/version.json`, format: 'json' as const, key: 'version' },
      ],
    },
    cli: {
      package: 'service-cli',
      // The command the package installs, which `release verify` runs (also read from the archive).
      bin: 'svc',
      build: {
        command: [process.execPath, BUILD_SCRIPT, 'cli', 'dist/service-cli.tar.gz'],
        archive: 'dist/service-cli.tar.gz',
      },
    },
  };
}
