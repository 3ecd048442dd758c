import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followProgress, progressError } from '../../src/docker-client/connect.ts';
import { applyLayers, readLayer, type TreeNode } from '../../src/oci-image/read-layer.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { importNodeShellBase } from '../helpers/node-shell-base.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { type RunningContainer, runContainer } from './containers.ts';

// A production Dockerfile as teams write them today, built by `release build --engine docker` on
// a private dockerd with BuildKit: one file, several targets (api, worker), a hard-coded base
// (imported into the engine under its own name: nothing is pulled), `# syntax=`, `ARG TARGETARCH`
// guarding the architecture, `RUN --mount=type=cache`, `COPY --chmod=755`, and the service's own
// version variable as a build arg baked into a version.json the config declares. Then a signed
// rc, a release from the rc, containers of the released images and `release verify --docker
// --registry` in step. The project's tags are CalVer without a `v`, and every tag keeps that
// spelling.

const RC = '2026.7.0-rc.1';
const RELEASE = '2026.7.0';
const BASE = 'acme/node:22-slim';
const PASSPHRASE = 'buildkit-release-passphrase';

const DOCKERFILE = `# syntax=docker/dockerfile:1
FROM ${BASE} AS base
ARG TARGETARCH
RUN case "$TARGETARCH" in amd64|arm64) ;; *) echo "Unsupported arch: $TARGETARCH"; exit 1 ;; esac
WORKDIR /srv

FROM base AS build
ARG ACME_VERSION=unknown
COPY app/ /srv/app/
RUN --mount=type=cache,target=/cache mkdir -p /srv/out \\
 && echo "{\\"version\\":\\"$ACME_VERSION\\",\\"arch\\":\\"$TARGETARCH\\"}" > /srv/out/version.json \\
 && cp /srv/out/version.json /cache/last.json

FROM base AS api
COPY --from=build /srv/out/version.json /srv/version.json
COPY --from=build /srv/app/api.mjs /srv/api.mjs
COPY --chmod=755 app/start.sh /srv/start.sh
ENV HOST=0.0.0.0 PORT=8080
ENTRYPOINT ["/srv/start.sh", "/srv/api.mjs"]

FROM base AS worker
COPY --from=build /srv/out/version.json /srv/version.json
COPY --from=build /srv/app/worker.mjs /srv/worker.mjs
COPY --chmod=755 app/start.sh /srv/start.sh
ENV WORKER_HEALTH_HOST=0.0.0.0 WORKER_HEALTH_PORT=8081
ENTRYPOINT ["/srv/start.sh", "/srv/worker.mjs"]
`;

// Each reads its version from the service's own variable, as a real service does.
const API = `import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const baked = JSON.parse(readFileSync('/srv/version.json', 'utf8')).version;
createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  if (req.url === '/api/version') return res.end(JSON.stringify({ version: process.env.ACME_VERSION, min_cli_version: '0.1.0' }));
  if (req.url === '/baked') return res.end(JSON.stringify({ version: baked }));
  res.statusCode = 404; res.end('{}');
}).listen(Number(process.env.PORT), process.env.HOST);
`;
const WORKER = `import { createServer } from 'node:http';
createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ status: 'ok', version: process.env.ACME_VERSION }));
}).listen(Number(process.env.WORKER_HEALTH_PORT), process.env.WORKER_HEALTH_HOST);
`;

describe('a multi-target BuildKit Dockerfile from build to a verified release', () => {
  let dockerd: Dockerd;
  let registry: RunningRegistry;
  let repo: GitRepo;
  let store: RegistryStore;
  let build: {
    engine: string;
    engineReason: string;
    images: Record<string, { reference: string; digest: string; pushed: boolean }>;
  };
  let buildOutput: string;
  let dryRun: { usable: string[]; engines: { details: Record<string, string[]>; warnings: string[] }[] };
  const containers: RunningContainer[] = [];
  const release = async (args: string[], expectCode = 0) => {
    const result = await runRelease(args, {
      cwd: repo.dir,
      env: {
        DOCKER_HOST: dockerd.host,
        RELEASE_SIGNING_PASSPHRASE: PASSPHRASE,
        // As on this machine, whatever the test runner's PATH: the docker 28 CLI (no buildx, so no
        // BuildKit) first, Debian's 20.10 with its own BuildKit after it.
        PATH: `/usr/local/bin:/usr/bin:/bin:${process.env['PATH'] ?? ''}`,
      },
      timeoutMs: 400_000,
    });
    expect(result.code, `${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(expectCode);
    return result;
  };
  const put = (path: string, text: string, mode = 0o644) => {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    repo.write(path, text);
    chmodSync(join(repo.dir, path), mode);
  };
  /** The files of an image as a container sees them, read from the registry's layers. */
  const filesOf = async (repository: string, reference: string) => {
    const manifest = JSON.parse(
      Buffer.from((await store.getManifest(repository, reference))!.bytes).toString('utf8'),
    ) as { config: { digest: string }; layers: { digest: string }[] };
    const layers = [];
    for (const l of manifest.layers)
      layers.push(await readLayer(await store.getBlob(repository, l.digest), { what: l.digest }));
    const config = JSON.parse(
      Buffer.from(await store.getBlob(repository, manifest.config.digest)).toString(),
    ) as {
      config: { Env: string[] };
    };
    return {
      tree: applyLayers(layers),
      env: config.config.Env,
      layers: manifest.layers.map((l) => l.digest),
    };
  };

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry()]);
    await importNodeShellBase(dockerd.docker, BASE);
    store = new RegistryStore({ registry: `${registry.host}/acme`, env: {} });
    repo = GitRepo.create('buildkit-release-');
    put('Dockerfile', DOCKERFILE);
    put('app/api.mjs', API);
    put('app/worker.mjs', WORKER);
    // 644 in the repository: the image's 755 can only come from COPY --chmod.
    put('app/start.sh', '#!/bin/sh\nexec node "$@"\n', 0o644);
    put('.gitignore', 'release-signing.key\ndist/\n');
    put(
      'release.config.json',
      JSON.stringify({
        registry: `${registry.host}/acme`,
        versionVariables: { server: ['ACME_VERSION'] },
        signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
        artifacts: {
          api: {
            image: 'acme-api',
            context: '.',
            target: 'api',
            versionFiles: [{ path: '/srv/version.json', format: 'json' }],
          },
          // Its version.json is declared nowhere: a release from the rc finds it in the rc's layers.
          worker: { image: 'acme-worker', context: '.', target: 'worker' },
          web: false,
          cli: false,
        },
      }),
    );
    await release(['keygen']);
    repo.commit('acme');
    repo.tag(RC);
    await release(['stamp']);
    dryRun = jsonOf(await release(['build', '--dry-run', '--engine', 'docker', '--json']));
    const built = await release(['build', '--engine', 'docker', '--push', '--json']);
    buildOutput = built.stdout + built.stderr;
    build = jsonOf(built);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(containers.map((c) => c.stop()));
    await Promise.all([dockerd?.stop(), registry?.stop()]);
    repo?.remove();
  });

  it('is ready by the dry run, which read what each target needs and found the base in the engine', () => {
    expect(dryRun.usable).toEqual(['docker']);
    const [docker] = dryRun.engines;
    expect(docker!.details['api']).toEqual([
      'needs BuildKit for: # syntax=docker/dockerfile:1, ARG TARGETARCH, RUN --mount=type=cache, COPY --chmod',
      `base ${BASE} (stage base, line 2): in the Docker engine`,
      'version build args it reads: ACME_VERSION',
    ]);
    // The worker copies from the build stage, which reads ACME_VERSION: both can bake it.
    expect(docker!.details['worker']).toContain('version build args it reads: ACME_VERSION');
    // The frontend named by `# syntax=` cannot be fetched here: said, and the build goes on without it.
    expect(docker!.warnings).toEqual([
      expect.stringMatching(
        /^artifacts\.api: \.\/Dockerfile: # syntax=docker\/dockerfile:1 cannot be fetched .*the engine's own Dockerfile frontend will read it$/,
      ),
      expect.stringMatching(/^artifacts\.worker: /),
    ]);
  });

  it('builds with BuildKit (said in the output), each target under the build tag, never our node base', async () => {
    expect(build.engine).toBe('docker');
    expect(build.engineReason).toMatch(
      /^--engine docker, built with docker 20\.10\.\S+ \(its own BuildKit\)$/,
    );
    // Which files bake the version is known only from the built image: not claimed to be none.
    expect(buildOutput).not.toContain('no file carries the version');
    expect(buildOutput).toContain('any file of the rc that carries its version (found when released)');
    for (const name of ['api', 'worker']) expect(build.images[name]!.pushed).toBe(true);
    // The Dockerfile names its own base: ours was neither made nor loaded.
    expect(buildOutput).not.toContain("making it from this machine's node");
    const names = (await dockerd.docker.listImages()).flatMap((i) => i.RepoTags ?? []);
    expect(names.filter((n) => n.startsWith('release-base/'))).toEqual([]);
  });

  it('carries the version in the image env, its own variable too, and bakes it through the build arg', async () => {
    for (const name of ['api', 'worker']) {
      const { env } = await filesOf(`acme-${name}`, build.images[name]!.digest);
      expect(env, name).toEqual(expect.arrayContaining([`SERVICE_VERSION=${RC}`, `ACME_VERSION=${RC}`]));
    }
    const { tree } = await filesOf('acme-api', build.images['api']!.digest);
    const baked = JSON.parse(
      (tree.get('/srv/version.json') as Extract<TreeNode, { type: 'file' }>).content.toString(),
    );
    // TARGETARCH set by BuildKit (the legacy builder leaves it empty, and the guard fails).
    expect(baked).toEqual({ version: RC, arch: 'amd64' });
  });

  describe('signed rc, then a release from the rc', () => {
    beforeAll(async () => {
      await release(['promote', '--channel', 'rc']);
      repo.tag(RELEASE);
      await release(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
    }, 300_000);

    it('holds the tags, the release env and version.json say the release, modes kept', {
      timeout: 240_000,
    }, async () => {
      for (const name of ['api', 'worker']) {
        const tags = await store.listTags(`acme-${name}`);
        expect(tags, name).toEqual(expect.arrayContaining([RC, RELEASE, 'latest']));
        expect(tags, name).not.toContain(`v${RELEASE}`);
        expect(tags, name).not.toContain(`v${RC}`);
        expect((await store.resolve(`acme-${name}`, RC))?.digest).toBe(build.images[name]!.digest);
        const rc = await filesOf(`acme-${name}`, RC);
        const released = await filesOf(`acme-${name}`, RELEASE);
        expect(released.env, name).toEqual(
          expect.arrayContaining([`SERVICE_VERSION=${RELEASE}`, `ACME_VERSION=${RELEASE}`]),
        );
        // Every layer of the rc is the release's too: it is the rc re-stamped, not rebuilt.
        expect(released.layers.slice(0, rc.layers.length)).toEqual(rc.layers);
        for (const files of [rc, released]) {
          const start = files.tree.get('/srv/start.sh') as Extract<TreeNode, { type: 'file' }>;
          expect(start.mode & 0o777, `${name} /srv/start.sh`).toBe(0o755);
        }
      }
      for (const name of ['api', 'worker']) {
        const { tree } = await filesOf(`acme-${name}`, RELEASE);
        const file = tree.get('/srv/version.json') as Extract<TreeNode, { type: 'file' }>;
        expect(JSON.parse(file.content.toString()), name).toEqual({ version: RELEASE, arch: 'amd64' });
        expect(file.mode & 0o777, name).toBe(0o644);
      }
    });

    it('runs the released images, and release verify --docker --registry finds them in step', async () => {
      const pull = async (name: string) => {
        const reference = `${registry.host}/acme/acme-${name}:${RELEASE}`;
        expect(progressError(await followProgress(await dockerd.docker.pull(reference)))).toBeUndefined();
        return reference;
      };
      const api = await runContainer(dockerd.docker, await pull('api'), {
        portEnv: 'PORT',
        hostEnv: 'HOST',
        readyPath: '/api/version',
      });
      containers.push(api);
      const worker = await runContainer(dockerd.docker, await pull('worker'), {
        portEnv: 'WORKER_HEALTH_PORT',
        hostEnv: 'WORKER_HEALTH_HOST',
        readyPath: '/',
      });
      containers.push(worker);
      expect((await api.getJson<{ version: string }>('/api/version')).body.version).toBe(RELEASE);
      expect((await api.getJson<{ version: string }>('/baked')).body.version).toBe(RELEASE);

      const verify = await release([
        'verify',
        ...['--url', `http://127.0.0.1:${api.port}`, '--docker', '--docker-host', dockerd.host],
        ...['--registry', '--expect', RELEASE, '--no-cli', '--json'],
      ]);
      const report = jsonOf<{
        inStep: boolean;
        artifacts: { name: string; version: string; status: string }[];
        registry: { artifact: string; expected: string; running: { digest: string }[] }[];
        findings: { code: string; severity: string }[];
      }>(verify);
      expect(report.inStep, verify.stdout).toBe(true);
      expect(report.artifacts.filter((a) => a.name !== 'web').map((a) => [a.name, a.version])).toEqual([
        ['api', RELEASE],
        ['worker', RELEASE],
      ]);
      for (const name of ['api', 'worker']) {
        const released = (await store.resolve(`acme-${name}`, RELEASE))!.digest;
        expect(
          report.registry.find((r) => r.artifact === name),
          name,
        ).toMatchObject({
          expected: released,
          running: [{ digest: released }],
        });
      }
      expect(report.findings.filter((f) => f.severity !== 'notice')).toEqual([]);

      // No --url: the API is found on the engine. Its container runs on the host's network (the
      // engine has no bridge), so it publishes nothing: the port its process listens on is read.
      const found = await release([
        'verify',
        ...[
          '--docker',
          '--docker-host',
          dockerd.host,
          '--registry',
          '--expect',
          RELEASE,
          '--no-cli',
          '--json',
        ],
      ]);
      const foundReport = jsonOf<typeof report & { url: string }>(found);
      expect(foundReport.url).toBe(`http://127.0.0.1:${api.port}`);
      expect(foundReport.inStep, found.stdout + found.stderr).toBe(true);
      expect(foundReport.artifacts.find((a) => a.name === 'api')?.version).toBe(RELEASE);
    }, 180_000);
  });

  it('records the builder and keeps the record readable', () => {
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    expect(record.artifacts.api.build).toMatchObject({ engine: 'docker', pushed: true });
  });
});
