import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { readTar } from '../../archives/tar-reader.ts';
import type { ImageRole } from '../../config/constants.ts';
import { ExternalError } from '../../errors.ts';
import { type StartedProcess, startProcess } from '../../processes/start-process.ts';
import type { ImageStore } from '../../registry/store.ts';

export interface StartedService {
  artifact: ImageRole;
  url: string;
  process: StartedProcess;
}

interface ImageConfig {
  config?: { Env?: string[]; Cmd?: string[]; Entrypoint?: string[] };
}

/** What a service prints once it is up; the URL is what the rest of the rehearsal talks to. */
const READY: Record<ImageRole, RegExp> = {
  api: /listening on (?<url>http:\/\/\S+)/,
  worker: /health on (?<url>http:\/\/\S+)/,
  web: /serving .* on (?<url>http:\/\/\S+)/,
};

/**
 * Run one released image as a local process: its `/app` files (in the layers on top of the node
 * base) are unpacked from the store, and `node /app/main.mjs` runs with the image's own
 * environment, paths under `/app` mapped to the unpacked copy and the listeners moved to
 * loopback ephemeral ports. What runs is exactly what the tag points to, not a fresh build.
 */
export async function startReleasedImage(options: {
  store: ImageStore;
  artifact: ImageRole;
  repository: string;
  tag: string;
  dir: string;
  env?: Record<string, string>;
  /** Layers known to hold no `/app` file (the base's): not unpacked, they are most of the bytes. */
  skipLayers?: ReadonlySet<string>;
}): Promise<StartedService> {
  const { store, artifact, repository, tag, dir } = options;
  const manifest = await store.getManifest(repository, tag);
  if (!manifest) throw new ExternalError('IMAGE_MISSING', `${repository}:${tag} is not in ${store.name}`);
  const { config, layers } = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as {
    config: { digest: string };
    layers: { digest: string }[];
  };
  const image = JSON.parse(
    Buffer.from(await store.getBlob(repository, config.digest)).toString('utf8'),
  ) as ImageConfig;
  if (layers.length === 0) throw new ExternalError('IMAGE_EMPTY', `${repository}:${tag} has no layers`);
  // The `/app` files may span layers (the api's CLI archive is a layer of its own): unpack the
  // `app/` entries of every layer, bottom up, as the image's filesystem would stack them.
  for (const layer of layers)
    if (!options.skipLayers?.has(layer.digest))
      await unpackApp(await store.getBlob(repository, layer.digest), dir);

  const env = Object.fromEntries(
    (image.config?.Env ?? []).map((line) => {
      const at = line.indexOf('=');
      const value = line.slice(at + 1);
      return [line.slice(0, at), value.startsWith('/app') ? join(dir, value) : value];
    }),
  );
  const entry = [...(image.config?.Entrypoint ?? []), ...(image.config?.Cmd ?? [])].find((arg) =>
    arg.startsWith('/app/'),
  );
  if (!entry)
    throw new ExternalError('IMAGE_NO_ENTRY', `${repository}:${tag} does not run a file under /app`);
  const started = await startProcess(join(dir, entry), {
    cwd: join(dir, 'app'),
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: '0',
      WORKER_HEALTH_HOST: '127.0.0.1',
      WORKER_HEALTH_PORT: '0',
      ...options.env,
    },
    readyPattern: READY[artifact],
  });
  return { artifact, url: started.url, process: started };
}

/** Unpack the `app/` entries of a gzipped tar layer under `dir`; nothing may land outside it. */
async function unpackApp(layer: Uint8Array, dir: string): Promise<void> {
  for await (const entry of readTar(layer, { gzip: true })) {
    const { header } = entry;
    const path = normalize(header.name.replace(/^\.?\/+/, ''));
    const inside = path.startsWith('app/') || path === 'app';
    if (!inside || path.split('/').includes('..')) continue;
    const target = join(dir, path);
    if (header.type === 'directory') await mkdir(target, { recursive: true });
    else if (header.type === 'file') {
      await mkdir(dirname(target), { recursive: true });
      await entry.pipeTo(createWriteStream(target, { mode: header.mode ?? 0o644 }));
    }
  }
}
