// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in these strings is Dockerfile syntax
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import { buildArgValue } from './build-arg-value.ts';
import { detectProject, type ProjectFiles } from './detect.ts';
import { readDockerfile } from './dockerfile.ts';
import { artifactOfDockerfile, isDockerfile } from './dockerfile-name.ts';
import { planConfig } from './plan-config.ts';
import { toolchainValue } from './toolchain-value.ts';
import { versionVariables } from './version-variables.ts';

// Shapes of real self-hosted repositories `release init` got wrong, each reduced to the files that
// matter (written for these tests): a `docker/dockerfile` beside helper base images; a Go
// toolchain ARG in a base image's tag with a placeholder default and the version in a file of its
// own; a celery beat service named `beat-worker`; a CI workflow that builds a Dockerfile it writes
// itself; a `Dockerfile.base`; a root package named `@x/root`, or `x-app` above services named
// `x-backend`; a Dockerfile target `cli` beside a CLI package; goreleaser's image pulled by a
// compose service of the same name.

function files(contents: Record<string, string>): ProjectFiles {
  const known = new Set(Object.keys(contents));
  for (const path of Object.keys(contents))
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) known.add(path.slice(0, i));
  return { paths: Object.keys(contents), read: (path) => contents[path], exists: (path) => known.has(path) };
}

function plan(contents: Record<string, string>, name = 'acme') {
  const listing = files(contents);
  const planned = planConfig(detectProject(listing), {
    name: detectProject(listing).name ?? name,
    exists: listing.exists!,
    read: listing.read,
    paths: listing.paths,
  });
  const artifacts = Object.fromEntries(planned.artifacts.map((a) => [a.name, a.value]));
  // Whatever init plans, the config loader takes.
  expect(() =>
    validateConfig(
      { registry: planned.registry, versionVariables: planned.versionVariables, artifacts },
      'plan',
    ),
  ).not.toThrow();
  return { plan: planned, artifacts, keys: planned.artifacts.map((a) => a.name) };
}

const GO_SERVICE = [
  'ARG GO_VERSION=PLEASE_PROVIDE_GO_VERSION',
  'ARG __PLATFORM=${TARGETPLATFORM/\\//-}',
  'FROM node:24 AS js',
  'COPY ./ui /src/ui',
  'FROM acme/build:${GO_VERSION}-${__PLATFORM} AS builder',
  'ARG LD_FLAGS=""',
  'COPY . /src',
  'RUN make build',
  'FROM debian:sid-slim',
  'COPY --from=builder /target /app',
  'ENTRYPOINT ["./app/acme"]',
].join('\n');

describe('Dockerfile names Docker accepts', () => {
  it.each([
    ['docker/dockerfile', true, 'app'],
    ['Dockerfile', true, 'app'],
    ['docker/Dockerfile', true, 'app'],
    ['build/package/Dockerfile', true, 'app'],
    ['server/docker/Dockerfile', true, 'server'],
    ['api/Dockerfile', true, 'api'],
    ['aio/Dockerfile-app', true, 'app'],
    ['Dockerfile.worker', true, 'worker'],
    ['docker/worker.dockerfile', true, 'worker'],
    ['src/init/dockerfile.ts', false, ''],
    ['docs/dockerfile.md', false, ''],
    ['Dockerfiles/README', false, ''],
  ])('%s: a Dockerfile %s, artifact "%s"', (path, is, artifact) => {
    expect(isDockerfile(path)).toBe(is);
    if (is) expect(artifactOfDockerfile(path)).toBe(artifact);
  });

  it('a lowercase docker/dockerfile is the product, its base and builder images are skipped', () => {
    const {
      artifacts,
      keys,
      plan: p,
    } = plan({
      'docker/dockerfile':
        'FROM acme/base:2 AS release\nWORKDIR /app\nCOPY . .\nEXPOSE 3001\nCMD ["node", "server/server.js"]\n',
      'docker/debian-base.dockerfile': 'FROM node:22-bookworm-slim\nRUN apt-get update\n',
      'docker/builder-go.dockerfile': 'FROM golang:1.22\nRUN go build ./...\n',
      'server/server.js': '',
    });
    expect(keys).toEqual(['app', 'worker', 'web', 'cli']);
    expect(artifacts['app']).toMatchObject({ role: 'api', context: '.', dockerfile: 'docker/dockerfile' });
    for (const helper of ['docker/debian-base.dockerfile', 'docker/builder-go.dockerfile'])
      expect(p.found).toContainEqual(
        expect.stringMatching(new RegExp(`^skipped ${helper}: not an artifact \\(a base or builder image`)),
      );
  });

  it('Dockerfile.base beside the Dockerfile is not an artifact', () => {
    const { keys } = plan({
      Dockerfile:
        'ARG BASE_IMAGE=acme/base\nFROM ${BASE_IMAGE}\nCOPY . /app\nCMD ["node", "/app/server.js"]\n',
      'Dockerfile.base': 'FROM node:22\nCOPY package.json /app/\nRUN yarn install\n',
      'server.js': '',
    });
    expect(keys).toEqual(['app', 'worker', 'web', 'cli']);
  });
});

describe('toolchain build args', () => {
  it('an ARG a FROM tag reads, directly or through another ARG, is a base ARG', () => {
    expect(readDockerfile(GO_SERVICE).baseArgs).toEqual(['GO_VERSION', '__PLATFORM']);
    expect(
      readDockerfile(
        'ARG GO_VERSION\nARG BUILDER=golang:${GO_VERSION}-alpine\nFROM $BUILDER\nARG APP_VERSION\n',
      ).baseArgs,
    ).toEqual(['GO_VERSION', 'BUILDER']);
  });

  it.each([
    ['GO_VERSION', { base: true }, 'toolchain'],
    ['NODE_VERSION', {}, 'toolchain'],
    ['PYTHON_VERSION', { default: '${PY}' }, 'toolchain'],
    ['APP_VERSION', {}, 'server'],
    ['APP_VERSION', { base: true }, 'toolchain'],
    ['GO_VERSION', { setByCi: true }, 'server'],
    ['VITE_APP_VERSION', { base: true }, 'client'],
    ['NODE_VERSION', { default: '22.11.0' }, 'pinned'],
  ] as const)('%s %j: %s', (name, extra, kind) => {
    const out = versionVariables([{ name, ...extra }]);
    const where = out.toolchain.some((t) => t.name === name)
      ? 'toolchain'
      : out.server.includes(name)
        ? 'server'
        : out.client.includes(name)
          ? 'client'
          : out.pinned.some((p) => p.startsWith(`${name}=`))
            ? 'pinned'
            : 'none';
    expect(where).toBe(kind);
  });

  it('one Dockerfile reading it in a FROM makes it a toolchain ARG for every other', () => {
    const out = versionVariables([{ name: 'RUNTIME_VERSION' }, { name: 'RUNTIME_VERSION', base: true }]);
    expect(out.server).toEqual([]);
    expect(out.toolchain.map((t) => t.name)).toEqual(['RUNTIME_VERSION']);
  });

  it.each([
    [{ GO_VERSION: '1.26.0\n' }, { value: '1.26.0', from: 'GO_VERSION' }],
    [{ '.go-version': '1.25.4\n' }, { value: '1.25.4', from: '.go-version' }],
    [
      { '.tool-versions': 'nodejs 22.1.0\ngolang 1.24.2\n' },
      { value: '1.24.2', from: '.tool-versions (golang)' },
    ],
    [
      { 'go.mod': 'module x\n\ngo 1.23.0\n\ntoolchain go1.24.1\n' },
      { value: '1.24.1', from: 'go.mod (toolchain)' },
    ],
    [{ 'go.mod': 'module x\n\ngo 1.23\n' }, { value: '1.23', from: 'go.mod (go)' }],
    [{ GO_VERSION: '$(shell cat x)\n' }, undefined],
    [{}, undefined],
  ])('GO_VERSION from %j', (contents, expected) => {
    expect(toolchainValue('GO_VERSION', (p) => (contents as Record<string, string>)[p])).toEqual(expected);
  });

  it('a Go build image tagged with GO_VERSION: the pinned Go, never the release version; named app, not docker', () => {
    const { artifacts, plan: p } = plan({
      'docker/Dockerfile': GO_SERVICE,
      GO_VERSION: '1.26.0\n',
      'go.mod': 'module example.com/acme\n\ngo 1.25\n',
      'ui/package.json': '{"name":"ui"}',
      Makefile: 'build:\n\tgo build\n',
    });
    expect(p.versionVariables).toEqual({ server: [], client: [] });
    expect(artifacts['app']).toMatchObject({
      role: 'api',
      dockerfile: 'docker/Dockerfile',
      buildArgs: { GO_VERSION: '1.26.0' },
    });
    expect(p.found).toContainEqual(
      expect.stringMatching(/^ARG GO_VERSION: it picks the image a stage starts FROM/),
    );
    expect(p.guessed).toContain('artifacts.app.buildArgs.GO_VERSION: "1.26.0", from GO_VERSION');
  });

  it.each([
    [
      'a build script, through its variable',
      'DOCKER_FROM="docker.io/ubuntu:24.04"\nARGS+=(--build-arg "FROM=${DOCKER_FROM}")\n',
      'docker.io/ubuntu:24.04',
    ],
    ['a literal --build-arg', 'docker build --build-arg FROM=debian:12-slim .\n', 'debian:12-slim'],
    ['another name ending in FROM is not it', 'DOCKER_FROM=ubuntu:24.04\n', undefined],
    ['a value that is no image reference', 'FROM="$(cat base.txt)"\n', undefined],
  ])('a FROM arg without a default, given in %s', (_, script, value) => {
    expect(buildArgValue('FROM', [{ path: 'build.sh', text: script }])?.value).toBe(value);
  });

  it("FROM ${FROM} with no default: the build script's value, so build --dry-run has one", () => {
    const { artifacts, plan: p } = plan({
      Dockerfile:
        'ARG FROM\nFROM ${FROM} AS builder\nRUN make\nARG FROM\nFROM ${FROM}\nCOPY --from=builder /opt /opt\n',
      'build.sh':
        '#!/bin/bash\nif [ -z "$DOCKER_FROM" ]; then\n  DOCKER_FROM="docker.io/ubuntu:24.04"\nfi\nDOCKER_BUILD_ARGS+=(--build-arg "FROM=${DOCKER_FROM}")\n',
      'docker-compose.yml':
        'services:\n  netbox:\n    image: docker.io/acme/netbox:${VERSION-v4}\n  netbox-worker:\n    image: docker.io/acme/netbox:${VERSION-v4}\n    command: [python, manage.py, rqworker]\n',
    });
    expect(artifacts['netbox']).toMatchObject({
      role: 'api',
      image: 'netbox',
      buildArgs: { FROM: 'docker.io/ubuntu:24.04' },
    });
    expect(artifacts['netbox-worker']).toMatchObject({ role: 'worker', image: 'netbox' });
    expect(p.todo.filter((t) => t.includes('buildArgs.FROM'))).toEqual([]);
  });

  it('nothing pins it: a TODO, not a guess', () => {
    const { artifacts, plan: p } = plan({ 'docker/Dockerfile': GO_SERVICE, Makefile: '' });
    expect(artifacts['app']).not.toHaveProperty('buildArgs');
    expect(p.todo).toContainEqual(
      expect.stringMatching(/^artifacts\.app\.buildArgs\.GO_VERSION: the toolchain version/),
    );
  });
});

describe('services of one image, CI builds, names', () => {
  const PLANE = {
    'apps/api/Dockerfile.api':
      'FROM python:3.12-alpine\nWORKDIR /code\nCOPY . .\nCMD ["./bin/docker-entrypoint-api.sh"]\n',
    'apps/web/Dockerfile.web': 'FROM node:22-alpine\nCOPY . .\nRUN npm run build\n',
    'docker-compose.yml': [
      'services:',
      '  web:',
      '    build: { context: ., dockerfile: ./apps/web/Dockerfile.web }',
      '  api:',
      '    build: { context: ./apps/api, dockerfile: Dockerfile.api }',
      '    image: acme-api',
      '    command: ./bin/docker-entrypoint-api.sh',
      '  worker:',
      '    image: acme-api',
      '    command: ./bin/docker-entrypoint-worker.sh',
      '  beat-worker:',
      '    image: acme-api',
      '    command: ./bin/docker-entrypoint-beat.sh',
      '  migrator:',
      '    image: acme-api',
      '    command: ./bin/docker-entrypoint-migrator.sh',
      '',
    ].join('\n'),
    '.github/workflows/build.yml': [
      'on: { push: { tags: ["v*"] } }',
      'jobs:',
      '  aio:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - run: cp -r deploy/aio aio && cat apps/*/Dockerfile* > aio/Dockerfile-app',
      '      - uses: docker/build-push-action@v6',
      '        with:',
      '          context: .',
      '          file: ./aio/Dockerfile-app',
      '          push: true',
      '          tags: acme/acme-aio:latest',
      '',
    ].join('\n'),
  };

  it('beat-worker is a worker, the migrator a job; an image whose Dockerfile the CI writes is left out, said why', () => {
    const { artifacts, keys, plan: p } = plan(PLANE);
    expect(keys).toEqual(['web', 'api', 'worker', 'beat-worker', 'migrator', 'cli']);
    expect(artifacts['beat-worker']).toMatchObject({ role: 'worker', image: 'acme-api' });
    expect(artifacts['migrator']).toMatchObject({ role: 'job', image: 'acme-api' });
    expect(p.todo).toContainEqual(
      expect.stringMatching(
        /aio\/Dockerfile-app is not in the repository \(made by the CI, or kept elsewhere\); not released/,
      ),
    );
  });

  it('a compose service built from a Dockerfile not in the repository is left out, said why', () => {
    const { keys, plan: p } = plan({
      'compose.yaml':
        'services:\n  api:\n    build: api\n  worker:\n    build: { context: worker, dockerfile: Containerfile }\n',
      'api/Dockerfile': 'FROM node:22\nCOPY . /app\n',
      'worker/main.js': '',
    });
    expect(keys).toEqual(['api', 'worker', 'web', 'cli']);
    expect(p.todo).toContainEqual(
      'compose.yaml service worker: worker/Containerfile is not in the repository; not released: add it, or declare the image',
    );
  });

  it('a root package @x/root names the project x; a target named cli is an image beside the CLI package', () => {
    const { artifacts, keys } = plan(
      {
        'package.json': '{"name":"@acme/root","private":true}',
        'docker/Dockerfile':
          'FROM node:22 AS base\nCOPY . /app\nFROM base AS web\nCMD ["node","web"]\nFROM base AS workers\nCMD ["node","workers"]\nFROM base AS cli\nCMD ["node","cli"]\n',
        '.github/workflows/docker.yml': [
          'on: { release: { types: [published] } }',
          'jobs:',
          '  build:',
          '    runs-on: ubuntu-latest',
          '    strategy: { matrix: { image: [web, workers, cli] } }',
          '    steps:',
          '      - uses: docker/build-push-action@v6',
          '        with:',
          '          file: docker/Dockerfile',
          '          target: ${{ matrix.image }}',
          '          push: true',
          '          tags: ${{ steps.tags.outputs.all }}',
          '',
        ].join('\n'),
        'apps/cli/package.json': '{"name":"@acme/cli","version":"1.0.0","bin":{"acme":"dist/index.js"}}',
      },
      'folder',
    );
    expect(keys).toEqual(['web', 'workers', 'cli-image', 'api', 'cli']);
    expect(artifacts['web']).toMatchObject({ image: 'acme-web', target: 'web' });
    expect(artifacts['cli-image']).toMatchObject({ image: 'acme-cli', target: 'cli' });
    expect(artifacts['cli']).toMatchObject({ package: '@acme/cli', bin: 'acme' });
  });

  it('services already named for the project keep their names as image names', () => {
    const { artifacts } = plan({
      'package.json': '{"name":"acme-app","private":true}',
      'prod.Dockerfile': 'FROM node:22 AS base\nCOPY . /app\nFROM base AS backend\nFROM base AS app\n',
      'docker-compose.yml':
        'services:\n  acme-backend:\n    build: { context: ., dockerfile: prod.Dockerfile, target: backend }\n  acme-app:\n    build: { context: ., dockerfile: prod.Dockerfile, target: app }\n',
    });
    expect(artifacts['acme-backend']).toMatchObject({ image: 'acme-backend' });
    expect(artifacts['acme-app']).toMatchObject({ image: 'acme-app' });
  });

  it("goreleaser's image is the one the compose service of the same name pulls", () => {
    const { artifacts } = plan({
      Dockerfile: 'FROM alpine:3\nCOPY acme .\nCMD ["./acme"]\n',
      '.goreleaser.yml':
        'builds:\n  - binary: acme\n    main: ./cmd\ndockers:\n  - image_templates: ["{{ .Env.ORG }}/{{ .ProjectName }}:{{ .Tag }}"]\n    dockerfile: Dockerfile\n',
      'docker-compose.yml':
        'services:\n  app:\n    image: acme/acme:latest\n    command: [sh, -c, "./acme --upgrade && ./acme"]\n  db:\n    image: postgres:17\n',
    });
    expect(artifacts['app']).toMatchObject({ role: 'api', image: 'acme', context: '.' });
  });
});
