// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile text, whose ${ARG} is its own substitution
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyLayers, readLayer, type TreeNode } from '../../src/oci-image/read-layer.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { importNodeShellBase } from '../helpers/node-shell-base.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// BuildKit builds through `release build --engine docker` on a private dockerd, one project per
// case: several platforms (one build each, written by digest, one index), build secrets (read by
// the step, never in the image or the output), and a failing step quoted as the builder said it.

const SHELL = 'acme/shell:1';
const SECRET = 's3cret-token-7f2a9c';

interface BuildJson {
  images: Record<string, { reference: string; digest: string; pushed: boolean }>;
}

let dockerd: Dockerd;
let registry: RunningRegistry;
let store: RegistryStore;
const repos: GitRepo[] = [];

beforeAll(async () => {
  [dockerd, registry] = await Promise.all([startDockerd(), startRegistry()]);
  await importNodeShellBase(dockerd.docker, SHELL, { node: false });
  store = new RegistryStore({ registry: `${registry.host}/acme`, env: {} });
}, 180_000);
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await Promise.all([dockerd?.stop(), registry?.stop()]);
});

/** A stamped project of these files and this one image artifact (`app`). */
async function project(
  files: Record<string, string>,
  app: Record<string, unknown>,
  modes: Record<string, number> = {},
) {
  const repo = GitRepo.create('buildkit-features-');
  repos.push(repo);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    repo.write(path, content);
    chmodSync(join(repo.dir, path), modes[path] ?? 0o644);
  }
  repo.write(
    'release.config.json',
    JSON.stringify({
      registry: `${registry.host}/acme`,
      artifacts: {
        api: false,
        worker: false,
        web: false,
        cli: false,
        app: { image: 'app', context: '.', ...app },
      },
    }),
  );
  repo.commit('app');
  repo.tag('v1.0.0');
  expect((await runRelease(['stamp'], { cwd: repo.dir })).code).toBe(0);
  return {
    repo,
    build: (env: Record<string, string> = {}) =>
      runRelease(['build', '--engine', 'docker', '--push', '--json'], {
        cwd: repo.dir,
        env: { DOCKER_HOST: dockerd.host, ...env },
        timeoutMs: 300_000,
      }),
  };
}

async function treeOf(repository: string, digest: string) {
  const manifest = JSON.parse(
    Buffer.from((await store.getManifest(repository, digest))!.bytes).toString(),
  ) as {
    config: { digest: string };
    layers: { digest: string }[];
  };
  const layers = [];
  for (const l of manifest.layers)
    layers.push(await readLayer(await store.getBlob(repository, l.digest), { what: l.digest }));
  return {
    tree: applyLayers(layers),
    config: JSON.parse(Buffer.from(await store.getBlob(repository, manifest.config.digest)).toString()) as {
      architecture: string;
      config: { Env: string[]; Labels: Record<string, string> };
      history: { created_by?: string }[];
    },
    blobs: await Promise.all(manifest.layers.map((l) => store.getBlob(repository, l.digest))),
  };
}

interface Sbom {
  metadata: { component: { hashes: { content: string }[] } };
  components: {
    type: string;
    name: string;
    'bom-ref': string;
    hashes?: { content: string }[];
    properties?: { name: string; value: string }[];
  }[];
}

const text = (node: TreeNode | undefined) => (node as Extract<TreeNode, { type: 'file' }>).content.toString();

describe('release build --engine docker with BuildKit', { timeout: 400_000 }, () => {
  it('builds each platform on its own, TARGETARCH set, and writes one index of them', async () => {
    const p = await project(
      {
        // The project's own source label (as a Go service's Dockerfile sets it) stays its own.
        Dockerfile:
          'FROM scratch AS app\nARG TARGETARCH\nARG SERVICE_VERSION\nLABEL org.opencontainers.image.source=https://example.org/acme/app\nCOPY --chmod=755 bin/app-${TARGETARCH} /app\n',
        'bin/app-amd64': 'amd64 program\n',
        'bin/app-arm64': 'arm64 program\n',
      },
      { platforms: ['linux/amd64', 'linux/arm64'] },
    );
    const result = await p.build();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const built = jsonOf<BuildJson>(result).images['app']!;
    const index = await store.getManifest('app', built.digest);
    expect(index?.descriptor.mediaType).toBe(MEDIA_TYPES.ociIndex);
    const children = (
      JSON.parse(Buffer.from(index!.bytes).toString()) as {
        manifests: { digest: string; platform: unknown }[];
      }
    ).manifests;
    expect(children.map((c) => c.platform)).toEqual([
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm64' },
    ]);
    for (const [i, arch] of ['amd64', 'arm64'].entries()) {
      const child = await treeOf('app', children[i]!.digest);
      expect(child.config.architecture).toBe(arch);
      expect(text(child.tree.get('/app'))).toBe(`${arch} program\n`);
      expect((child.tree.get('/app') as { mode: number }).mode & 0o777).toBe(0o755);
      expect(child.config.config.Env).toContain('SERVICE_VERSION=v1.0.0');
      expect(child.config.config.Labels).toMatchObject({
        'org.opencontainers.image.source': 'https://example.org/acme/app',
        'org.opencontainers.image.version': 'v1.0.0',
      });
    }
    // The SBOM of the index lists each platform image and its files; each platform image has its
    // own SBOM listing its files (what a node of that platform runs).
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const evidence = (name: string) =>
      JSON.parse(readFileSync(join(p.repo.dir, 'dist/evidence', `${name}.sbom.cdx.json`), 'utf8')) as Sbom;
    const indexSbom = evidence('app');
    const files = indexSbom.components.filter((c) => c.type === 'file');
    expect(files.map((c) => [c.name, c.properties?.[0]?.value, c.hashes?.[0]?.content]).sort()).toEqual([
      ['/app', 'linux/amd64', sha('amd64 program\n')],
      ['/app', 'linux/arm64', sha('arm64 program\n')],
    ]);
    expect(
      indexSbom.components
        .filter((c) => c.type === 'container' && c['bom-ref'].startsWith('image:'))
        .map((c) => c['bom-ref'])
        .sort(),
    ).toEqual(children.map((c) => `image:${c.digest}`).sort());
    for (const [i, arch] of ['amd64', 'arm64'].entries()) {
      const own = evidence(`app@linux-${arch}`);
      expect(own.metadata.component.hashes[0]!.content).toBe(children[i]!.digest.slice('sha256:'.length));
      expect(
        own.components.filter((c) => c.type === 'file').map((c) => [c.name, c.hashes?.[0]?.content]),
      ).toEqual([['/app', sha(`${arch} program\n`)]]);
    }
    // skopeo, independently, reads the index under the build tag and picks each platform's child.
    const ref = `docker://${built.reference}`;
    for (const arch of ['amd64', 'arm64']) {
      const seen = JSON.parse(
        execFileSync('skopeo', ['inspect', '--tls-verify=false', '--override-arch', arch, ref], {
          encoding: 'utf8',
        }),
      ) as { Architecture: string; Env: string[] };
      expect(seen.Architecture).toBe(arch);
    }
  });

  it('gives RUN --mount=type=secret the secrets the config names, from the environment and a file, and keeps them out of the image and the output', async () => {
    const p = await project(
      {
        'app/Dockerfile': [
          `FROM ${SHELL}`,
          'RUN --mount=type=secret,id=npm_token --mount=type=secret,id=netrc \\',
          // The step sees both, equal (the value itself is never written in the Dockerfile, whose
          // RUN lines the image history keeps): their length is the proof left in the image.
          '    T=$(cat /run/secrets/npm_token) && [ "$T" = "$(cat /run/secrets/netrc)" ] && echo "read ${#T}" > /ok',
          'ARG SERVICE_VERSION',
          '',
        ].join('\n'),
        'secrets/netrc': SECRET,
      },
      {
        context: 'app',
        secrets: [
          { id: 'npm_token', env: 'NPM_TOKEN' },
          { id: 'netrc', file: 'secrets/netrc' },
        ],
      },
    );
    const result = await p.build({ NPM_TOKEN: SECRET });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    const built = await treeOf('app', jsonOf<BuildJson>(result).images['app']!.digest);
    expect(text(built.tree.get('/ok'))).toBe(`read ${SECRET.length}\n`);
    expect(built.tree.has('/run/secrets/npm_token')).toBe(false);
    for (const blob of built.blobs) expect(Buffer.from(blob).toString('latin1')).not.toContain(SECRET);
    expect(JSON.stringify(built.config)).not.toContain(SECRET);

    // Without the variable it is refused before any build: BuildKit's cache would not notice.
    const missing = await p.build({});
    expect(missing.code).toBe(2);
    expect(jsonOf<{ error: { code: string; message: string } }>(missing).error).toEqual(
      expect.objectContaining({
        code: 'BUILD_SECRET_UNSET',
        message: 'artifacts.app.secrets: "npm_token" comes from NPM_TOKEN, which is not set',
      }),
    );
  });

  // No buildx can be installed on this machine (Debian 12 has no package, GitHub is out of reach):
  // real buildx was NOT run here. A stand-in `docker` (DOCKER_CLI) answers `buildx version`, records
  // each `buildx build` argv, and runs the build with the CLI's own BuildKit, dropping what that CLI
  // cannot take (--load: it loads anyway; --cache-to and type= cache sources: buildx only). So the
  // argv we form for buildx is asserted, and a real BuildKit build still runs from it.
  it('forms the buildx argv (load, target, platform, network, build args, secrets, cache) and builds from it', async () => {
    const p = await project(
      {
        Dockerfile: [
          `FROM ${SHELL} AS deps`,
          'RUN echo deps > /deps',
          `FROM ${SHELL} AS app`,
          'ARG SERVICE_VERSION',
          'COPY --from=deps /deps /deps',
          'RUN --mount=type=secret,id=token T=$(cat /run/secrets/token) && echo "read ${#T} for $SERVICE_VERSION" > /ok',
          `FROM ${SHELL} AS debug`,
          'RUN echo debug > /debug',
          '',
        ].join('\n'),
      },
      {
        target: 'app',
        platforms: ['linux/amd64'],
        network: 'host',
        secrets: [{ id: 'token', env: 'BUILD_TOKEN' }],
        cache: { from: ['type=local,src=.cache/buildx'], to: ['type=local,dest=.cache/buildx,mode=max'] },
      },
    );
    const shim = join(p.repo.dir, '..', `${p.repo.dir.split('/').pop()}-docker-shim`);
    const log = `${shim}.log`;
    writeFileSync(
      shim,
      `#!${process.execPath}
const { spawnSync } = require('node:child_process');
const { appendFileSync } = require('node:fs');
const args = process.argv.slice(2);
if (args[0] === 'buildx' && args[1] === 'version') {
  console.log('github.com/docker/buildx v0.17.1-shim 0000000');
  process.exit(0);
}
let run = args;
let env = process.env;
if (args[0] === 'buildx' && args[1] === 'build') {
  appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');
  run = ['build'];
  for (let i = 2; i < args.length; i++) {
    if (args[i] === '--load') continue;
    if (args[i] === '--cache-to') { i++; continue; }
    if (args[i] === '--cache-from' && args[i + 1].startsWith('type=')) { i++; continue; }
    run.push(args[i]);
  }
  env = { ...process.env, DOCKER_BUILDKIT: '1' };
}
const r = spawnSync('/usr/bin/docker', run, { stdio: 'inherit', env });
process.exit(r.status ?? 1);
`,
    );
    chmodSync(shim, 0o755);
    const result = await p.build({ DOCKER_CLI: shim, BUILD_TOKEN: SECRET });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain('buildx v0.17.1-shim');
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    const argv = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string[]);
    expect(argv).toHaveLength(1);
    const a = argv[0]!;
    const valuesOf = (flag: string) => a.flatMap((x, i) => (x === flag ? [a[i + 1]] : []));
    expect(a.slice(0, 3)).toEqual(['buildx', 'build', '--load']);
    expect(a.at(-1)).toBe('-'); // the context we made, on stdin
    expect(valuesOf('--target')).toEqual(['release-stamped']); // the stage we append on the project's target
    expect(valuesOf('--platform')).toEqual(['linux/amd64']);
    expect(valuesOf('--network')).toEqual(['host']);
    expect(valuesOf('--secret')).toEqual(['id=token,env=BUILD_TOKEN']);
    expect(valuesOf('--cache-from')).toEqual(['type=local,src=.cache/buildx']);
    expect(valuesOf('--cache-to')).toEqual(['type=local,dest=.cache/buildx,mode=max']);
    expect(valuesOf('--build-arg')).toContain('SERVICE_VERSION=v1.0.0');
    expect(a.join(' ')).not.toContain(SECRET);
    const built = await treeOf('app', jsonOf<BuildJson>(result).images['app']!.digest);
    expect(text(built.tree.get('/ok'))).toBe(`read ${SECRET.length} for v1.0.0\n`);
    expect(text(built.tree.get('/deps'))).toBe('deps\n');
    expect(built.tree.has('/debug')).toBe(false); // the target's stage, not the last
    expect(built.config.config.Env).toContain('SERVICE_VERSION=v1.0.0');
  });

  // The docker 20.10 CLI's own BuildKit (this machine's /usr/bin/docker, no buildx): its
  // --cache-from takes image names only. An image built with BUILDKIT_INLINE_CACHE=1 is a cache
  // source for a build on an engine that has none of its layers; a `type=local` source or any
  // cache export is refused before anything is built (that CLI would skip the one silently and
  // reject the other as an unknown flag).
  it("reads a cache from an image with the CLI's own BuildKit, and refuses type=local and cache.to before building", async () => {
    // The step's output is random: the same bytes in a second image prove it came from the cache.
    const files = {
      Dockerfile: [
        `FROM ${SHELL}`,
        'ARG SERVICE_VERSION',
        'RUN read -r u < /proc/sys/kernel/random/uuid && echo "$u" > /rand',
        '',
      ].join('\n'),
    };
    const first = await project(files, { buildArgs: { BUILDKIT_INLINE_CACHE: '1' } });
    const built = await first.build();
    expect(built.code, built.stdout + built.stderr).toBe(0);
    const cacheImage = jsonOf<BuildJson>(built).images['app']!.reference;
    const rand = text(
      (await treeOf('app', jsonOf<BuildJson>(built).images['app']!.digest)).tree.get('/rand'),
    );
    // Nothing of the first build left in the engine: only the registry's image can give the step.
    for (const image of await dockerd.docker.listImages())
      if (!(image.RepoTags ?? []).includes(SHELL))
        await dockerd.docker.getImage(image.Id).remove({ force: true });
    execFileSync('/usr/bin/docker', ['builder', 'prune', '--all', '--force'], {
      env: { ...process.env, DOCKER_HOST: dockerd.host },
      stdio: 'ignore',
    });

    const cached = await project(files, { cache: { from: [cacheImage] } });
    const again = await cached.build();
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const second = await treeOf('app', jsonOf<BuildJson>(again).images['app']!.digest);
    expect(text(second.tree.get('/rand'))).toBe(rand);

    const local = await project(files, {
      cache: { from: ['type=local,src=.cache/buildkit'], to: ['type=local,dest=.cache/buildkit'] },
    });
    const dry = await runRelease(['build', '--dry-run', '--engine', 'docker', '--json'], {
      cwd: local.repo.dir,
      env: { DOCKER_HOST: dockerd.host },
    });
    expect(dry.code).toBe(2);
    const problems = jsonOf<{ engines: { problems: string[] }[] }>(dry).engines[0]!.problems;
    expect(problems.filter((p) => p.startsWith('artifacts.app.cache.'))).toEqual([
      expect.stringMatching(
        /^artifacts\.app\.cache\.from "type=local,src=\.cache\/buildkit": the docker CLI's own BuildKit reads a cache only from an image .*\(docker 20\.10\.\S+ \(its own BuildKit\), \/usr\/bin\/docker\)$/,
      ),
      expect.stringMatching(/^artifacts\.app\.cache\.to: the docker CLI's own BuildKit has no --cache-to/),
    ]);
    const before = (await dockerd.docker.listImages()).length;
    const refused = await local.build();
    expect(refused.code).toBe(2);
    const error = jsonOf<{ error: { code: string; message: string; hint: string } }>(refused).error;
    expect(error.code).toBe('BUILD_CACHE_NEEDS_BUILDX');
    expect(error.message).toContain('artifacts.app.cache.from "type=local,src=.cache/buildkit"');
    expect(error.message).toContain('artifacts.app.cache.to:');
    expect(error.hint).toContain('buildx');
    expect((await dockerd.docker.listImages()).length).toBe(before);
  });

  it("quotes the builder's failing step and its last output lines, escaped, and guesses nothing", async () => {
    const p = await project(
      {
        Dockerfile: [
          `FROM ${SHELL} AS build`,
          'ARG TARGETARCH',
          'ARG SERVICE_VERSION',
          'RUN echo "resolving packages"; printf "\\033[2Jcleared\\n"; echo "Unsupported arch: riscv-$TARGETARCH" >&2; exit 3',
          '',
        ].join('\n'),
      },
      {},
    );
    const result = await p.build();
    expect(result.code).toBe(3);
    const error = jsonOf<{ error: { code: string; message: string; hint: string } }>(result).error;
    expect(error.code).toBe('DOCKER_BUILD_FAILED');
    expect(error.message).toContain('(docker 20.10');
    expect(error.message).toMatch(/failed step: \[build 2\/2\] RUN echo "resolving packages"/);
    expect(error.message).toContain('error: executor failed running');
    expect(error.message).toContain('exit code: 3');
    expect(error.message).toContain('  | resolving packages');
    expect(error.message).toContain('  | Unsupported arch: riscv-amd64');
    // The terminal escape the step printed is shown, not obeyed.
    expect(error.message).toContain('\\u001b[2Jcleared');
    expect(error.message).not.toContain('\u001b');
    expect(error.message + error.hint).not.toContain('/usr/local/bin/node');
    expect(error.hint).toMatch(/the step quoted above is the builder's own/);
  });
});
