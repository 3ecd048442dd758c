import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import CycloneDX from '@cyclonedx/cyclonedx-library';
import type Docker from 'dockerode';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeSpec } from '../../src/build/image-specs.ts';
import { imageArtifact } from '../../src/config/artifacts.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { MIN_CLI_VERSION } from '../../src/service/api/min-cli-version.ts';
import { referenceArtifacts } from '../../src/service/release-artifacts.ts';
import { bundleOf, referrersOf, verifyDsse } from '../evidence/dsse.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { ARTIFACT_RUN, runContainer } from './containers.ts';

// The Docker path: a private real dockerd and a real registry with basic auth; the login comes
// from a docker config file, as on a CI runner after `docker login`. One build for the suite.

interface BuildJson {
  tag: string;
  engine: string;
  images: Record<
    'api' | 'worker' | 'web',
    { reference: string; digest: string | null; imageId: string; pushed: boolean }
  >;
}

const TAG = 'v2.0.0-rc.1';
const USER = 'builder';
const PASSWORD = 'build-pass-5f1c2e';
const ARTIFACTS = ['api', 'worker', 'web'] as const;

const VERSION_FILES: Record<string, string | undefined> = {
  api: '/app/service-cli.tar.gz',
  web: '/app/web/index.html,/app/web/version.json',
};

describe('release build --engine docker --push', () => {
  let dockerd: Dockerd;
  let registry: RunningRegistry;
  let repo: GitRepo;
  let dockerConfig: string;
  let commit: string;
  let result: RunResult;
  let out: BuildJson;

  // The release key as a CI job has it (RELEASE_SIGNING_KEY): the build signs each image's SBOM
  // and provenance and attaches them in the registry (test/evidence has the oci engine's side).
  const evidenceKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const env = (extra: Record<string, string> = {}) => ({
    DOCKER_HOST: dockerd.host,
    DOCKER_CONFIG: dockerConfig,
    RELEASE_SIGNING_KEY: evidenceKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    RELEASE_SIGNING_PASSPHRASE: 'unused-the-key-is-not-encrypted',
    ...extra,
  });
  const skopeo = (...args: string[]) =>
    JSON.parse(
      execFileSync(
        'skopeo',
        [...args.slice(0, 1), '--tls-verify=false', '--creds', `${USER}:${PASSWORD}`, ...args.slice(1)],
        {
          encoding: 'utf8',
        },
      ),
    ) as Record<string, unknown>;

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([
      // vfs, whose differ compares metadata: the version layer's copies must still differ from
      // the code layer's there (overlay2 would keep them whatever their times).
      startDockerd({ storageDriver: 'vfs' }),
      startRegistry({ htpasswd: { user: USER, password: PASSWORD } }),
    ]);
    dockerConfig = mkdtempSync(join(tmpdir(), 'sr-docker-config-'));
    writeFileSync(
      join(dockerConfig, 'config.json'),
      JSON.stringify({
        auths: { [registry.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } },
      }),
    );
    repo = GitRepo.create('build-docker-');
    writeReferenceConfig(repo.dir, { registry: `${registry.host}/acme` });
    commit = repo.commit('first');
    repo.tag(TAG);
    const stamp = await runRelease(['stamp', '--json'], { cwd: repo.dir });
    expect(stamp.code, stamp.stderr).toBe(0);
    result = await runRelease(['build', '--engine', 'docker', '--push', '--json'], {
      cwd: repo.dir,
      env: env(),
      timeoutMs: 400_000,
    });
    expect(result.code, result.stderr).toBe(0);
    out = jsonOf<BuildJson>(result);
  }, 480_000);

  afterAll(async () => {
    await Promise.all([dockerd?.stop(), registry?.stop()]);
    repo?.remove();
    if (dockerConfig) rmSync(dockerConfig, { recursive: true, force: true });
  });

  it('pushes every image and records the digests the registry has', () => {
    expect(out).toMatchObject({ tag: TAG, engine: 'docker' });
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    for (const name of ARTIFACTS) {
      const image = out.images[name];
      expect(image.pushed).toBe(true);
      // Under the build tag: version tags are written only by promotion.
      expect(image.reference).toBe(`${registry.host}/acme/service-${name}:build-${commit.slice(0, 12)}`);
      // Beside it only the referrers fallback tag (sha256-<hex>) of its SBOM and provenance, and
      // cosign's attestation tag (sha256-<hex>.att) holding the same evidence.
      const tags = skopeo('list-tags', `docker://${registry.host}/acme/service-${name}`)['Tags'] as string[];
      expect(tags.filter((t) => !/^sha256-[0-9a-f]{64}(\.att|\.sig)?$/.test(t))).toEqual([
        `build-${commit.slice(0, 12)}`,
      ]);
      expect(tags).toContain(`sha256-${image.digest!.slice(7)}`);
      expect(tags).toContain(`sha256-${image.digest!.slice(7)}.att`);
      const remote = skopeo('inspect', `docker://${image.reference}`);
      expect(remote['Digest']).toBe(image.digest);
      expect(record.artifacts[name].digest).toBe(image.digest);
      expect(record.artifacts[name].build).toMatchObject({
        engine: 'docker',
        pushed: true,
        imageId: image.imageId,
      });
      expect(remote['Labels']).toEqual({
        'org.opencontainers.image.created': '2023-11-14T22:14:20Z',
        'org.opencontainers.image.revision': commit,
        'org.opencontainers.image.source': 'unknown',
        'org.opencontainers.image.title': `service-${name}`,
        'org.opencontainers.image.version': TAG,
        // The files a release re-stamps, copied last into a layer of their own.
        ...(VERSION_FILES[name] ? { 'org.service-release.version-layer.files': VERSION_FILES[name] } : {}),
        ...(name === 'web'
          ? {
              'org.service-release.version-layer.formats':
                '/app/web/index.html=html-meta:service-client-version,/app/web/version.json=json:version',
            }
          : {}),
        // The API's min_cli_version, for `release upgrade` to read before it starts.
        ...(name === 'api' ? { 'io.service-release.min-cli-version': MIN_CLI_VERSION } : {}),
      });
    }
  });

  it('attaches to each pushed image a signed CycloneDX SBOM of its own files and SLSA provenance of its commit', async () => {
    const store = new RegistryStore({ registry: `${registry.host}/acme`, env: env() });
    const publicKey = evidenceKey.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const validator = new CycloneDX.Validation.JsonStrictValidator(CycloneDX.Spec.Version.v1dot6);
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    for (const name of ARTIFACTS) {
      const repository = `service-${name}`;
      const digest = out.images[name].digest!;
      const payload = async (type: string) => {
        const [found] = await referrersOf(store, repository, digest, type);
        expect(found, `${name} ${type}`).toBeDefined();
        const bytes = verifyDsse(await bundleOf(store, repository, found!.digest), publicKey);
        expect(bytes, `${name} ${type} verifies with the public key`).toBeDefined();
        return JSON.parse(bytes!.toString('utf8'));
      };
      const sbom = await payload('https://cyclonedx.org/bom');
      expect(await validator.validate(JSON.stringify(sbom.predicate)), name).toBeNull();
      const files = (
        sbom.predicate.components as { type: string; name: string; hashes: { content: string }[] }[]
      ).filter((c) => c.type === 'file');
      expect(files.length, name).toBeGreaterThan(0);
      if (name === 'api') {
        // The CLI archive the Dockerfile copied, with the SHA-256 the record has for it.
        const archive = files.find((f) => f.name === VERSION_FILES['api']);
        expect(archive?.hashes[0]?.content).toBe(record.artifacts.cli.sha256);
      }
      const provenance = await payload('https://slsa.dev/provenance/v1');
      expect(provenance.subject[0].digest.sha256).toBe(digest.slice(7));
      expect(provenance.predicate.buildDefinition.resolvedDependencies[0].digest).toEqual({
        gitCommit: commit,
      });
      expect(provenance.predicate.buildDefinition.externalParameters.recipe.dockerfile.sha256).toMatch(
        /^[0-9a-f]{64}$/,
      );
    }
  });

  it('never prints the registry password', () => {
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    expect(result.stdout + result.stderr).not.toContain(
      Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
    );
  });

  it('gives the images the same config the oci engine writes (the Dockerfiles and the recipes agree)', async () => {
    const reference = validateConfig({ artifacts: referenceArtifacts() }, 'reference');
    for (const name of ARTIFACTS) {
      const info = await dockerd.docker.getImage(out.images[name].reference).inspect();
      const spec = recipeSpec(imageArtifact(reference, name)!, {
        tag: TAG,
        commit,
        epoch: 1_700_000_060,
        source: 'unknown',
        title: `service-${name}`,
        // What the build adds for the API: the min_cli_version it serves, as a label.
        ...(name === 'api' ? { extra: { 'io.service-release.min-cli-version': MIN_CLI_VERSION } } : {}),
      });
      for (const [key, value] of Object.entries(spec.env))
        expect(info.Config.Env).toContain(`${key}=${value}`);
      expect(info.Config.Entrypoint).toEqual(spec.entrypoint);
      expect(info.Config.Cmd).toEqual(spec.cmd);
      expect(info.Config.WorkingDir).toBe(spec.workingDir);
      expect(info.Config.User).toBe(spec.user);
      expect(Object.keys(info.Config.ExposedPorts ?? {})).toEqual(spec.exposedPorts);
      // The reference Dockerfiles also name their version layer's files (the recipe's engine adds it),
      // and the build the formats of the declared ones (both engines add it beside the spec).
      const {
        'org.service-release.version-layer.files': files,
        'org.service-release.version-layer.formats': _formats,
        ...labels
      } = info.Config.Labels ?? {};
      expect(labels).toEqual(spec.labels);
      if (name !== 'worker') expect(files).toBeDefined();
    }
  });

  it('puts in the last layer of the api and web images only the files the label names (and their folders)', async () => {
    for (const name of ['api', 'web'] as const) {
      const entries = await lastLayerEntries(dockerd.docker, out.images[name].reference);
      const files = entries.filter((e) => e.type !== 'directory').map((e) => `/${e.name}`);
      expect(files.sort()).toEqual(VERSION_FILES[name]!.split(',').sort());
    }
  });

  it.each(ARTIFACTS)('runs the %s image and it reports the stamped version', async (name) => {
    const container = await runContainer(dockerd.docker, out.images[name].reference, ARTIFACT_RUN[name]);
    try {
      const { status, body } = await container.getJson<{ version: string }>(ARTIFACT_RUN[name].readyPath);
      expect(status).toBe(200);
      expect(body.version).toBe(TAG);
      if (name === 'api') {
        const res = await fetch(`http://127.0.0.1:${container.port}/api/cli/download/service-cli.tar.gz`, {
          method: 'HEAD',
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-checksum-sha256')).toMatch(/^[0-9a-f]{64}$/);
      }
    } finally {
      await container.stop();
    }
  });

  it('with the default OCI layout registry: keeps the image in the engine without --push, copies it into the layout with it', async () => {
    const local = GitRepo.create('build-docker-layout-');
    writeReferenceConfig(local.dir);
    try {
      const head = local.commit('layout');
      expect((await runRelease(['stamp'], { cwd: local.dir })).code).toBe(0);
      const plain = await runRelease(['build', '--engine', 'docker', '--only', 'worker', '--json'], {
        cwd: local.dir,
        env: env(),
        timeoutMs: 300_000,
      });
      expect(plain.code, plain.stderr).toBe(0);
      const kept = jsonOf<BuildJson>(plain).images.worker;
      const version = head.slice(0, 7);
      const tag = `build-${head.slice(0, 12)}`;
      expect(kept).toMatchObject({ pushed: false, digest: null, reference: `service-worker:${tag}` });
      expect((await dockerd.docker.getImage(kept.reference).inspect()).Id).toBe(kept.imageId);

      const pushed = await runRelease(
        ['build', '--engine', 'docker', '--only', 'worker', '--push', '--json'],
        {
          cwd: local.dir,
          env: env(),
          timeoutMs: 300_000,
        },
      );
      expect(pushed.code, pushed.stderr).toBe(0);
      const written = jsonOf<BuildJson>(pushed).images.worker;
      expect(written).toMatchObject({
        pushed: true,
        reference: `oci-layout:.release/oci/service-worker:${tag}`,
      });
      const layout = `oci:${join(local.dir, '.release/oci/service-worker')}:${tag}`;
      const inspected = JSON.parse(execFileSync('skopeo', ['inspect', layout], { encoding: 'utf8' }));
      expect(inspected.Digest).toBe(written.digest);
      expect(inspected.Env).toContain(`SERVICE_VERSION=${version}`);
      // The config's bytes were kept, so its digest is still the engine's image ID.
      const manifest = JSON.parse(execFileSync('skopeo', ['inspect', '--raw', layout], { encoding: 'utf8' }));
      expect(manifest.config.digest).toBe(written.imageId);
      const record = JSON.parse(readFileSync(join(local.dir, 'dist/release.json'), 'utf8'));
      expect(record.artifacts.worker.digest).toBe(written.digest);
    } finally {
      local.remove();
    }
  }, 600_000);

  it('fails with exit 3 and a hint when the registry refuses the login, without the password', async () => {
    const badConfig = mkdtempSync(join(tmpdir(), 'sr-docker-config-'));
    try {
      const wrong = 'wrong-pass-a81e2';
      writeFileSync(
        join(badConfig, 'config.json'),
        JSON.stringify({
          auths: { [registry.host]: { auth: Buffer.from(`${USER}:${wrong}`).toString('base64') } },
        }),
      );
      const failed = await runRelease(
        ['build', '--engine', 'docker', '--push', '--only', 'worker', '--json'],
        {
          cwd: repo.dir,
          env: env({ DOCKER_CONFIG: badConfig }),
          timeoutMs: 300_000,
        },
      );
      expect(failed.code).toBe(3);
      expect(jsonOf<{ error: { code: string; hint: string } }>(failed).error).toMatchObject({
        code: 'DOCKER_PUSH_FAILED',
      });
      expect(failed.stderr).toMatch(/hint: .*auths in/);
      expect(failed.stdout + failed.stderr).not.toContain(wrong);
      // Nothing half-written: the record still has the good build.
      const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
      expect(record.artifacts.worker.digest).toBe(out.images.worker.digest);
    } finally {
      rmSync(badConfig, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('release build --engine docker without an engine', () => {
  it('exits 3 with DOCKER_UNREACHABLE and says what to do', async () => {
    const repo = GitRepo.create('build-nodocker-');
    writeReferenceConfig(repo.dir);
    try {
      repo.commit('one');
      await runRelease(['stamp'], { cwd: repo.dir });
      const result = await runRelease(['build', '--engine', 'docker', '--json'], {
        cwd: repo.dir,
        env: { DOCKER_HOST: `unix://${join(repo.dir, 'nothing.sock')}` },
      });
      expect(result.code).toBe(3);
      expect(jsonOf<{ error: { code: string } }>(result).error.code).toBe('DOCKER_UNREACHABLE');
      expect(result.stderr).toMatch(/hint: .*--engine oci/);
    } finally {
      repo.remove();
    }
  });
});

/** The entries (name, type) of an image's last layer, from the engine's `docker save`. */
async function lastLayerEntries(docker: Docker, name: string): Promise<{ name: string; type: string }[]> {
  const files = new Map<string, Buffer>();
  await readTar((await docker.getImage(name).get()) as NodeJS.ReadableStream, (entryName, body) =>
    files.set(entryName, body),
  );
  const [manifest] = JSON.parse(files.get('manifest.json')!.toString('utf8')) as { Layers: string[] }[];
  const entries: { name: string; type: string }[] = [];
  await readTar(Readable.from([files.get(manifest!.Layers.at(-1)!)!]), (entryName, _body, type) =>
    entries.push({ name: entryName.replace(/\/$/, ''), type }),
  );
  return entries;
}

async function readTar(
  stream: NodeJS.ReadableStream,
  onEntry: (name: string, body: Buffer, type: string) => void,
): Promise<void> {
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      onEntry(entry.header.name, Buffer.concat(chunks), entry.header.type ?? 'file');
    }
  })();
  stream.on('error', (error) => reader.destroy(error as Error));
  stream.pipe(reader as unknown as NodeJS.WritableStream);
  await done;
}
