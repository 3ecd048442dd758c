// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile text, whose ${ARG} is its own substitution
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// `release build --dry-run --engine docker` reads each Dockerfile: the BuildKit features it needs,
// the bases it cannot reach (asked of their registry: a real docker-registry holds one, not the
// other), whether a version variable reaches the target, what several platforms need, secrets.
// No Docker engine answers here, so only registries are asked. It is "ready" only for what can work.

interface DryRun {
  usable: string[];
  engines: { engine: string; problems: string[]; warnings?: string[]; details?: Record<string, string[]> }[];
}

let registry: RunningRegistry;
let BASE: string;
let MISSING: string;
const repos: GitRepo[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  BASE = `${registry.host}/base/node:22`;
  MISSING = `${registry.host}/base/python:3.13`;
  await pushImage(new RegistryStore({ registry: registry.host, env: {} }), 'base/node', makeImage({}), '22');
}, 60_000);
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await registry?.stop();
});

async function dryRun(
  dockerfile: string,
  app: Record<string, unknown> = {},
  env: Record<string, string> = {},
) {
  const repo = GitRepo.create('dry-run-dockerfiles-');
  repos.push(repo);
  mkdirSync(dirname(join(repo.dir, 'Dockerfile')), { recursive: true });
  repo.write('Dockerfile', dockerfile);
  repo.write(
    'release.config.json',
    JSON.stringify({
      versionVariables: { server: ['ACME_VERSION'] },
      artifacts: { api: false, worker: false, web: false, cli: false, app: { context: '.', ...app } },
    }),
  );
  repo.commit('app');
  const run = async (json: boolean) =>
    runRelease(['build', '--dry-run', '--engine', 'docker', ...(json ? ['--json'] : [])], {
      cwd: repo.dir,
      env: { DOCKER_HOST: `unix://${join(repo.dir, 'no-engine.sock')}`, ...env },
    });
  const [json, text] = [await run(true), await run(false)];
  const verdict = jsonOf<DryRun>(json);
  const docker = verdict.engines[0]!;
  return {
    code: json.code,
    ready: verdict.usable.includes('docker'),
    text: text.stdout,
    problems: docker.problems.join('\n'),
    warnings: (docker.warnings ?? []).join('\n'),
    details: (docker.details?.['app'] ?? []).join('\n'),
  };
}

describe('release build --dry-run --engine docker reads the Dockerfile', { timeout: 120_000 }, () => {
  it('names the BuildKit features, finds the base in its registry, the version arg read: ready', async () => {
    const found = await dryRun(
      `# syntax=${BASE}\nFROM ${BASE} AS base\nARG TARGETARCH\nRUN --mount=type=cache,target=/c true\nFROM base AS app\nARG ACME_VERSION\nCOPY --chmod=755 --link x /x\nRUN <<EOF\necho hi\nEOF\n`,
      { target: 'app' },
    );
    expect(found.ready, found.text).toBe(true);
    expect(found.details).toContain(
      `needs BuildKit for: # syntax=${BASE}, ARG TARGETARCH, RUN --mount=type=cache, COPY --chmod, COPY --link, heredoc`,
    );
    expect(found.details).toContain(`base ${BASE} (stage base, line 2): in the registry`);
    expect(found.details).toContain('version build args it reads: ACME_VERSION');
    expect(found.warnings).toBe('');
    expect(found.text).toContain('ready for --engine docker');
  });

  it.each([
    {
      name: 'a base its registry does not have',
      dockerfile: (): string =>
        `FROM ${BASE} AS deps\nRUN true\nFROM ${MISSING} AS app\nARG SERVICE_VERSION\nCOPY --from=deps /x /x\n`,
      app: {},
      problem: (): string => `base ${MISSING} (stage app, line 3): ${registry.host} has no ${MISSING}`,
    },
    {
      name: 'a base through an ARG whose default names a missing image',
      dockerfile: (): string => `ARG PY=${MISSING}\nFROM \${PY}\nARG SERVICE_VERSION\n`,
      app: {},
      problem: (): string => `base ${MISSING} (stage 0, line 2)`,
    },
    {
      name: 'FROM a build arg nobody gives',
      dockerfile: (): string => 'ARG RUNTIME\nFROM ${RUNTIME}\nARG SERVICE_VERSION\n',
      app: {},
      problem: (): string => 'line 2: FROM ${RUNTIME} names a build arg with no value',
    },
    {
      name: 'two platforms with RUN steps on the target platform and no emulation here',
      dockerfile: (): string => `FROM ${BASE}\nARG SERVICE_VERSION\nRUN make\n`,
      app: { platforms: ['linux/amd64', 'linux/arm64'] },
      problem: (): string =>
        'artifacts.app.platforms: linux/arm64: stage 0 RUN commands for arm64, and this machine cannot run arm64 programs',
    },
    {
      name: 'a stage pinned to a platform this machine cannot run',
      dockerfile: (): string =>
        `FROM --platform=linux/arm64 ${BASE} AS tools\nRUN true\nFROM scratch\nARG SERVICE_VERSION\nCOPY --from=tools /x /x\n`,
      app: {},
      problem: (): string =>
        'artifacts.app: stage tools RUN commands for linux/arm64 (its FROM --platform), and this machine cannot run arm64 programs',
    },
    {
      // A real service's file ADDs an installer script from the internet: the build fails at that
      // step where the host cannot be reached, so the dry run asks it first.
      name: 'an ADD from a host that cannot be reached',
      dockerfile: (): string =>
        'FROM scratch\nARG SERVICE_VERSION\nADD http://127.0.0.1:1/uv/install.sh /uv.sh\n',
      app: {},
      problem: (): string =>
        'artifacts.app: ./Dockerfile line 3: ADD http://127.0.0.1:1/uv/install.sh: cannot be fetched from here (connection refused)',
    },
    {
      name: 'an ADD of a file its server does not have',
      dockerfile: (): string =>
        `FROM scratch\nARG SERVICE_VERSION\nADD --chmod=755 ["http://${registry.host}/no/such/file.sh", "/x.sh"]\n`,
      app: {},
      problem: (): string =>
        `ADD http://${registry.host}/no/such/file.sh: answers 404: there is no such file`,
    },
    {
      name: 'a secret from a variable that is not set',
      dockerfile: (): string => 'FROM scratch\nARG SERVICE_VERSION\n',
      app: { secrets: [{ id: 'npm', env: 'SR_TEST_UNSET_TOKEN' }] },
      problem: (): string => 'artifacts.app.secrets: "npm" comes from SR_TEST_UNSET_TOKEN, which is not set',
    },
    {
      name: "a cache export the CLI's own BuildKit cannot do",
      dockerfile: (): string => 'FROM scratch\nARG SERVICE_VERSION\n',
      app: { cache: { to: ['type=local,dest=/tmp/c'] } },
      problem: (): string => "artifacts.app.cache.to: the docker CLI's own BuildKit has no --cache-to",
    },
    {
      // That CLI splits the value at its commas into image names, fails to import them, and builds
      // on without a cache and without an error (tried on docker 20.10): refused here instead.
      name: "a local cache source the CLI's own BuildKit would skip silently",
      dockerfile: (): string => 'FROM scratch\nARG SERVICE_VERSION\n',
      app: { cache: { from: ['type=local,src=/tmp/c'] } },
      problem: (): string =>
        'artifacts.app.cache.from "type=local,src=/tmp/c": the docker CLI\'s own BuildKit reads a cache only from an image',
    },
  ])('never says ready for $name', async ({ dockerfile, app, problem }) => {
    const found = await dryRun(dockerfile(), app);
    expect(found.code).toBe(2);
    expect(found.ready).toBe(false);
    expect(found.problems).toContain(problem());
    expect(found.text).not.toContain('ready for');
  });

  it('says once per platform what a base used by several stages needs (a monorepo file with a shared builder)', async () => {
    // The shape of a pnpm monorepo's production file: a Go builder and a node base both FROM the
    // same pinned image, several targets, RUN steps everywhere, built in CI for amd64 and arm64.
    const found = await dryRun(
      `FROM ${MISSING} AS go_builder\nARG TARGETARCH\nRUN build-go\nFROM ${MISSING} AS node_base\nRUN apk add nodejs\nFROM node_base AS backend\nCOPY --from=go_builder /caddy /usr/bin/caddy\nCOPY --chmod=755 healthcheck.sh /\n`,
      { target: 'backend', platforms: ['linux/amd64', 'linux/arm64'] },
    );
    expect(found.ready).toBe(false);
    const lines = found.problems.split('\n');
    expect(lines.filter((l) => l.includes(`linux/arm64: the base ${MISSING} must be fetched`))).toHaveLength(
      1,
    );
    expect(lines.filter((l) => l.includes('(stage go_builder, line 1)'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('(stage node_base, line 4)'))).toHaveLength(1);
    expect(found.problems).toContain('stage go_builder, node_base RUN commands for arm64');
  });

  it('cross-builds from the build platform without emulation: two platforms ready', async () => {
    // A helper stage pinned to this machine's platform (written out, as files pin such helpers by
    // digest) RUNs and is fetched for that platform only, whatever the build targets.
    const found = await dryRun(
      `FROM --platform=linux/amd64 ${BASE} AS xx\nRUN chmod +x /x\nFROM --platform=$BUILDPLATFORM ${BASE} AS build\nCOPY --from=xx /x /x\nARG TARGETARCH ACME_VERSION\nRUN GOARCH=$TARGETARCH go build\nFROM scratch\nCOPY --from=build /out /app\n`,
      { platforms: ['linux/amd64', 'linux/arm64'] },
    );
    expect(found.ready, found.text).toBe(true);
    expect(found.details).toContain('platforms linux/amd64, linux/arm64: one BuildKit build per platform');
  });

  it.each([
    ['no version ARG at all', 'FROM scratch\nCOPY x /x\n', undefined],
    [
      'the version ARG only in a stage the target does not reach',
      `FROM ${BASE} AS tools\nARG SERVICE_VERSION\nFROM scratch AS app\nCOPY x /x\n`,
      'app',
    ],
  ])('warns (and stays ready) for %s', async (_, dockerfile, target) => {
    const found = await dryRun(dockerfile, target ? { target } : {});
    expect(found.ready).toBe(true);
    expect(found.warnings).toMatch(
      /declares no ARG of a version variable \(SERVICE_VERSION, ACME_VERSION, SERVICE_CLIENT_VERSION\) in a stage of its target/,
    );
  });

  it('lists what an ADD downloads while building, and stays ready when it answers', async () => {
    const found = await dryRun(
      `ARG REG=${registry.host}\nFROM scratch\nARG SERVICE_VERSION\nADD http://\${REG}/v2/ /v2.json\n`,
    );
    expect(found.ready, found.text).toBe(true);
    expect(found.details).toContain(
      `downloads while building: http://${registry.host}/v2/ (ADD, stage 0, line 4)`,
    );
  });

  it('warns of a secret the Dockerfile mounts and the config does not give', async () => {
    const found = await dryRun('FROM scratch\nARG SERVICE_VERSION\nRUN --mount=type=secret,id=npmrc true\n');
    expect(found.ready).toBe(true);
    expect(found.warnings).toContain('mounts the secret "npmrc", which artifacts.app.secrets does not give');
  });
});
