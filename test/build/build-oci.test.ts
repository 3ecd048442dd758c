import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildTiming } from '../../src/build/build-timing.ts';
import { MIN_CLI_VERSION } from '../../src/service/api/min-cli-version.ts';
import { expectBuildTiming } from '../helpers/build-timing.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { ARTIFACT_RUN, runContainer } from './containers.ts';

// The daemonless path: `release build --engine oci` with no Docker engine anywhere, checked by
// skopeo (an independent reader of what we wrote) and then run for real in a private dockerd.

interface BuildJson {
  tag: string;
  engine: string;
  engineReason: string;
  created: string;
  cli: { archive: string; sha256: string; size: number };
  images: Record<'api' | 'worker' | 'web', { reference: string; digest: string; pushed: boolean }>;
  timing: BuildTiming;
  warnings: string[];
}

const TAG = 'v1.4.0';
const ARTIFACTS = ['api', 'worker', 'web'] as const;

function skopeoJson(...args: string[]): Record<string, unknown> {
  return JSON.parse(execFileSync('skopeo', args, { encoding: 'utf8' })) as Record<string, unknown>;
}

const WEB_FORMATS = '/app/web/index.html=html-meta:service-client-version,/app/web/version.json=json:version';

describe('release build --engine oci', () => {
  let repo: GitRepo;
  let commit: string;
  /** Where the build writes: a tag of the commit, never the version (only promotion writes that). */
  let build_: string;
  let first: BuildJson;
  let layout: string;
  const build = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
    runRelease(['build', ...args, '--json'], { cwd: repo.dir, env, timeoutMs: 180_000 });

  beforeAll(async () => {
    repo = GitRepo.create('build-oci-');
    writeReferenceConfig(repo.dir);
    repo.commit('first');
    commit = repo.commit('second');
    build_ = `build-${commit.slice(0, 12)}`;
    repo.tag(TAG);
    const stamp = await runRelease(['stamp', '--json'], { cwd: repo.dir });
    expect(stamp.code, stamp.stderr).toBe(0);
    const result = await build(['--engine', 'oci']);
    expect(result.code, result.stderr).toBe(0);
    first = jsonOf<BuildJson>(result);
    layout = join(repo.dir, '.release/oci');
  }, 240_000);

  afterAll(() => repo?.remove());

  it('reports the engine, the digests and the CLI archive, and writes them into the record', () => {
    expect(first).toMatchObject({ tag: TAG, engine: 'oci', created: '2023-11-14T22:15:20Z' });
    const archive = readFileSync(join(repo.dir, first.cli.archive));
    expect(first.cli.sha256).toBe(createHash('sha256').update(archive).digest('hex'));
    // The default base did not exist in this fresh checkout: it was made from this node.
    expect(first.warnings.join('\n')).toMatch(/base image oci-layout:\.release\/base\/node:20 did not exist/);

    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    expect(record.artifacts.cli).toMatchObject({
      archive: 'dist/service-cli.tar.gz',
      sha256: first.cli.sha256,
    });
    for (const name of ARTIFACTS) {
      expect(first.images[name].digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(first.images[name].reference).toBe(`oci-layout:.release/oci/service-${name}:${build_}`);
      expect(record.artifacts[name].digest).toBe(first.images[name].digest);
      expect(record.artifacts[name].build).toMatchObject({
        engine: 'oci',
        pushed: true,
        reference: first.images[name].reference,
        created: '2023-11-14T22:15:20Z',
      });
    }
    // No channel tag: neither the version nor latest exists until a promotion writes it.
    for (const name of ARTIFACTS) {
      const index = JSON.parse(readFileSync(join(layout, `service-${name}`, 'index.json'), 'utf8')) as {
        manifests: { annotations?: Record<string, string> }[];
      };
      const tags = index.manifests.map((m) => m.annotations?.['org.opencontainers.image.ref.name']);
      expect(tags, name).toEqual([build_]);
    }
    expect(first).toMatchObject({ buildTag: build_ });
    // What stamp decided is kept.
    expect(record.artifacts.api.references).toEqual([
      'oci-layout:.release/oci/service-api:v1.4.0',
      'oci-layout:.release/oci/service-api:latest',
    ]);
  });

  it('says where its time went: each step, each artifact and the base it made, by sub-step', () => {
    expectBuildTiming(first.timing, {
      images: [...ARTIFACTS],
      cli: 'cli',
      // writeReferenceConfig configures no signing key: nothing is signed, so no signing is timed.
      signed: false,
      base: 'oci-layout:.release/base/node:20',
    });
  });

  it('writes images skopeo reads: digest, labels and environment', () => {
    for (const name of ARTIFACTS) {
      const image = skopeoJson('inspect', `oci:${layout}/service-${name}:${build_}`);
      expect(image['Digest']).toBe(first.images[name].digest);
      const layers = image['Layers'] as string[];
      // The api's and web's version files are a last layer of their own, named by labels.
      const versionLayer: Record<string, string> =
        name === 'worker'
          ? {}
          : {
              'org.service-release.version-layer.digest': layers.at(-1)!,
              'org.service-release.version-layer.files':
                name === 'api' ? '/app/service-cli.tar.gz' : '/app/web/index.html,/app/web/version.json',
              // The web's declared version files say how each carries its version.
              ...(name === 'web' ? { 'org.service-release.version-layer.formats': WEB_FORMATS } : {}),
            };
      expect(image['Labels']).toEqual({
        'org.opencontainers.image.created': '2023-11-14T22:15:20Z',
        'org.opencontainers.image.revision': commit,
        'org.opencontainers.image.source': 'unknown',
        'org.opencontainers.image.title': `service-${name}`,
        'org.opencontainers.image.version': TAG,
        ...versionLayer,
        // The API's min_cli_version, for `release upgrade` to read before it starts.
        ...(name === 'api' ? { 'io.service-release.min-cli-version': MIN_CLI_VERSION } : {}),
      });
      expect(layers).toHaveLength(name === 'worker' ? 2 : 3); // the base, the app, the version layer
      const config = skopeoJson('inspect', '--config', `oci:${layout}/service-${name}:${build_}`) as {
        created: string;
        config: { Env: string[]; Entrypoint: string[]; Cmd: string[]; User: string };
      };
      expect(config.created).toBe('2023-11-14T22:15:20Z');
      expect(config.config.Entrypoint).toEqual(['/usr/local/bin/node']);
      expect(config.config.Cmd).toEqual(['/app/main.mjs']);
      expect(config.config.User).toBe('65534:65534');
      const env = config.config.Env;
      if (name === 'web') expect(env).toContain(`SERVICE_CLIENT_VERSION=${TAG}`);
      else expect(env).toContain(`SERVICE_VERSION=${TAG}`);
      if (name === 'api') expect(env).toContain('SERVICE_CLI_ARCHIVE=/app/service-cli.tar.gz');
    }
  });

  it('is reproducible: a second build, engine chosen by itself with no Docker answering, gives the same digests', async () => {
    const again = await build([], { DOCKER_HOST: `unix://${join(repo.dir, 'no-docker.sock')}` });
    expect(again.code, again.stderr).toBe(0);
    const second = jsonOf<BuildJson>(again);
    expect(second.engine).toBe('oci');
    expect(second.engineReason).toMatch(/no Docker engine answered/);
    expect(second.cli.sha256).toBe(first.cli.sha256);
    for (const name of ARTIFACTS) expect(second.images[name].digest).toBe(first.images[name].digest);
  }, 180_000);

  describe('run in a real Docker engine after skopeo copy', () => {
    let dockerd: Dockerd;
    beforeAll(async () => {
      dockerd = await startDockerd();
    });
    afterAll(async () => {
      await dockerd?.stop();
    });

    it.each(ARTIFACTS)('the %s container reports the stamped version', async (name) => {
      const local = `service-${name}:${TAG}`;
      execFileSync('skopeo', [
        'copy',
        '-q',
        `oci:${layout}/service-${name}:${build_}`,
        `docker-daemon:${local}`,
        '--dest-daemon-host',
        dockerd.host,
      ]);
      const container = await runContainer(dockerd.docker, local, ARTIFACT_RUN[name]);
      try {
        const { status, body } = await container.getJson<{ version: string }>(ARTIFACT_RUN[name].readyPath);
        expect(status).toBe(200);
        expect(body.version).toBe(TAG);
        if (name === 'api') {
          // The archive baked into the image is the one the record names.
          const res = await fetch(`http://127.0.0.1:${container.port}/api/cli/download/service-cli.tar.gz`);
          const bytes = Buffer.from(await res.arrayBuffer());
          expect(res.headers.get('x-checksum-sha256')).toBe(first.cli.sha256);
          expect(createHash('sha256').update(bytes).digest('hex')).toBe(first.cli.sha256);
        }
        if (name === 'worker') expect(body).toMatchObject({ status: 'ok' });
        expect(await container.logs()).toContain(`service-${name} ${TAG}`);
      } finally {
        await container.stop();
      }
    });
  });

  it('takes its time from SOURCE_DATE_EPOCH when set, never the clock (--only limits the work)', async () => {
    const result = await build(['--engine', 'oci', '--only', 'worker'], { SOURCE_DATE_EPOCH: '1600000000' });
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<BuildJson>(result);
    expect(Object.keys(out.images)).toEqual(['worker']);
    expect(out.cli).toBeNull();
    expect(out.images.worker.digest).not.toBe(first.images.worker.digest);
    const image = skopeoJson('inspect', `oci:${layout}/service-worker:${build_}`);
    expect(image['Digest']).toBe(out.images.worker.digest);
    expect((image['Labels'] as Record<string, string>)['org.opencontainers.image.created']).toBe(
      '2020-09-13T12:26:40Z',
    );
    // The record keeps the other artifacts' digests.
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    expect(record.artifacts.worker.digest).toBe(out.images.worker.digest);
    expect(record.artifacts.api.digest).toBe(first.images.api.digest);
  }, 120_000);
});

describe('release build --engine oci with a registry', () => {
  let registry: RunningRegistry;
  let repo: GitRepo;
  let build_: string;
  beforeAll(async () => {
    registry = await startRegistry();
    repo = GitRepo.create('build-oci-registry-');
    const base = `${registry.host}/base/node:20`;
    writeReferenceConfig(repo.dir, {
      registry: `${registry.host}/acme`,
      artifacts: { worker: { base }, api: { base }, web: { base } },
    });
    build_ = `build-${repo.commit('one').slice(0, 12)}`;
    repo.tag('v5.0.0');
    expect((await runRelease(['stamp'], { cwd: repo.dir })).code).toBe(0);
  });
  afterAll(async () => {
    await registry?.stop();
    repo?.remove();
  });

  it('pushes the base made here, builds on it with --push into the registry, and without --push into the local layout', async () => {
    const base = await runRelease(['base-image', '--json'], { cwd: repo.dir, timeoutMs: 120_000 });
    expect(base.code, base.stderr).toBe(0);
    const baseDigest = jsonOf<{ images: { digest: string }[] }>(base).images[0]?.digest;
    expect(
      skopeoJson('inspect', '--tls-verify=false', `docker://${registry.host}/base/node:20`)['Digest'],
    ).toBe(baseDigest);

    const pushed = await runRelease(['build', '--engine', 'oci', '--push', '--only', 'worker', '--json'], {
      cwd: repo.dir,
      timeoutMs: 180_000,
    });
    expect(pushed.code, pushed.stderr).toBe(0);
    const worker = jsonOf<BuildJson>(pushed).images.worker;
    expect(worker).toMatchObject({
      pushed: true,
      reference: `${registry.host}/acme/service-worker:${build_}`,
    });
    const remote = skopeoJson(
      'inspect',
      '--tls-verify=false',
      `docker://${registry.host}/acme/service-worker:${build_}`,
    );
    expect(remote['Digest']).toBe(worker.digest);
    expect(remote['Env']).toContain('SERVICE_VERSION=v5.0.0');
    // The push wrote the build tag only: the version tag is promotion's.
    const tags = skopeoJson(
      'list-tags',
      '--tls-verify=false',
      `docker://${registry.host}/acme/service-worker`,
    );
    expect(tags['Tags']).toEqual([build_]);

    const local = await runRelease(['build', '--engine', 'oci', '--only', 'worker', '--json'], {
      cwd: repo.dir,
      timeoutMs: 180_000,
    });
    expect(local.code, local.stderr).toBe(0);
    const kept = jsonOf<BuildJson>(local).images.worker;
    expect(kept).toMatchObject({
      pushed: false,
      reference: `oci-layout:.release/oci/service-worker:${build_}`,
      digest: worker.digest,
    });
    expect(
      skopeoJson('inspect', `oci:${join(repo.dir, '.release/oci/service-worker')}:${build_}`)['Digest'],
    ).toBe(worker.digest);
  }, 240_000);
});
