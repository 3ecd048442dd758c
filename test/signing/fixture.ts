import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { parsePrivateKey, type SigningKey } from '../../src/signing/keys.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';
import { startRegistry } from '../helpers/registry.ts';

export const PASSPHRASE = 'fixture-passphrase-c41b9e';
export const IMAGES = { api: 'service-api', worker: 'service-worker', web: 'service-web' } as const;

/**
 * A project directory wired to a real `docker-registry`: a key pair made by `writeKeyPair`, a
 * config naming the registry and the keys, and helpers to push test images. `env` is what a CI
 * job would set for `release` (the passphrase only).
 */
export async function signingProject(options: { privateKeyInConfig?: boolean } = {}) {
  const registry = await startRegistry({ deleteEnabled: true });
  const dir = mkdtempSync(join(tmpdir(), 'sr-signing-'));
  const keys = await writeKeyPair(dir, { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE });
  const privatePem = readFileSync(keys.privateKey, 'utf8');
  const key: SigningKey = parsePrivateKey(privatePem, PASSPHRASE, 'fixture');
  const config = {
    registry: registry.host,
    signing: {
      publicKey: 'release-signing.pub',
      ...(options.privateKeyInConfig === false ? {} : { privateKey: 'release-signing.key' }),
    },
  };
  writeFileSync(join(dir, 'release.config.json'), JSON.stringify(config, null, 2));
  const store = new RegistryStore({ registry: registry.host, env: {} });
  return {
    dir,
    registry,
    store,
    key,
    privatePem,
    env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE } as Record<string, string>,
    /** Push a fresh image of `repository` under `tag`; returns its digest. */
    push: (repository: string, tag?: string) => pushImage(store, repository, makeImage({ size: 256 }), tag),
    /** Push a fresh image of every configured repository under `tag`. */
    async pushAll(tag: string): Promise<Record<keyof typeof IMAGES, string>> {
      const out = {} as Record<keyof typeof IMAGES, string>;
      for (const [artifact, repository] of Object.entries(IMAGES)) {
        out[artifact as keyof typeof IMAGES] = await pushImage(
          store,
          repository,
          makeImage({ size: 256 }),
          tag,
        );
      }
      return out;
    },
    async cleanup() {
      await registry.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type SigningProject = Awaited<ReturnType<typeof signingProject>>;

/** A release record as `release stamp` + `release build` leave it, for `--channel rc` runs. */
export function writeRecord(
  project: SigningProject,
  tag: string,
  channel: string,
  digests: Partial<Record<string, string>>,
) {
  const image = (name: keyof typeof IMAGES) => ({
    repository: `${project.registry.host}/${IMAGES[name]}`,
    references: [`${project.registry.host}/${IMAGES[name]}:${tag}`],
    ...(digests[name] ? { digest: digests[name] } : {}),
  });
  const record = {
    schemaVersion: 1,
    version: tag,
    tag,
    channel,
    source: 'env',
    commit: null,
    dirty: false,
    commitTime: null,
    artifacts: {
      api: image('api'),
      worker: image('worker'),
      web: image('web'),
      cli: { package: 'service-cli', version: tag },
    },
  };
  mkdirSync(join(project.dir, 'dist'), { recursive: true });
  writeFileSync(join(project.dir, 'dist', 'release.json'), JSON.stringify(record));
}
