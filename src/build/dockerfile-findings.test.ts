// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile text, whose ${ARG} is its own substitution
import { describe, expect, it } from 'vitest';
import { configuredBaseArg, dockerfileFindings, substitute } from './dockerfile-findings.ts';
import { parseDockerfile } from './dockerfile-stages.ts';

const VERSION_NAMES = ['SERVICE_VERSION', 'SERVICE_CLIENT_VERSION', 'ACME_VERSION'];
const find = (text: string, target?: string, buildArgs: Record<string, string> = {}) =>
  dockerfileFindings(parseDockerfile(text), { target, buildArgs, versionNames: VERSION_NAMES });

// Shapes of production Dockerfiles seen in real services (a pnpm monorepo with one multi-target
// file, a Go service cross-compiling from the build platform), reduced to what the reader sees.
const MONOREPO = `# syntax=docker/dockerfile:1.7
ARG NODE_IMAGE=node:22-alpine
FROM \${NODE_IMAGE} AS base
ARG TARGETARCH
RUN case "$TARGETARCH" in amd64) A=x64 ;; arm64) A=arm64 ;; *) echo "Unsupported arch: $TARGETARCH"; exit 1 ;; esac

FROM base AS deps
RUN --mount=type=cache,id=pnpm,target=/pnpm/store \\
    --mount=type=secret,id=npmrc,target=/root/.npmrc \\
    pnpm install --frozen-lockfile

FROM deps AS build
ARG APP_VERSION
ARG SERVICE_VERSION
RUN pnpm build

FROM base AS backend
COPY --from=build --chmod=755 /app/dist /app
CMD ["node", "/app/main.js"]

FROM nginx:1.27-alpine AS web
COPY --link --from=build /app/web /usr/share/nginx/html

FROM base AS all-in-one
COPY --from=backend /app /app
COPY --from=web /usr/share/nginx/html /srv
`;

const GO = `FROM --platform=$BUILDPLATFORM golang:1.22 AS build
ARG TARGETOS TARGETARCH
ARG ACME_VERSION=dev
RUN --mount=type=cache,target=/root/.cache/go-build GOOS=$TARGETOS GOARCH=$TARGETARCH go build -ldflags "-X main.version=$ACME_VERSION" -o /out/acme .

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/acme /acme
ENTRYPOINT ["/acme"]
`;

describe('dockerfileFindings', () => {
  it.each([
    {
      name: 'a legacy-builder Dockerfile: nothing only BuildKit reads',
      text: 'FROM debian:12\nARG SERVICE_VERSION\nENV SERVICE_VERSION=$SERVICE_VERSION\nCOPY . /app\n',
      target: undefined,
      features: [],
      bases: ['debian:12'],
      versionArgs: ['SERVICE_VERSION'],
    },
    {
      name: 'the backend target of a monorepo file: its stages only, ARG default substituted in FROM',
      text: MONOREPO,
      target: 'backend',
      features: [
        '# syntax=docker/dockerfile:1.7',
        'ARG TARGETARCH',
        'RUN --mount=type=cache',
        'RUN --mount=type=secret',
        'COPY --chmod',
      ],
      bases: ['node:22-alpine'],
      versionArgs: ['SERVICE_VERSION'],
    },
    {
      name: 'the web target: its own base and the build stage it copies from',
      text: MONOREPO,
      target: 'web',
      features: [
        '# syntax=docker/dockerfile:1.7',
        'ARG TARGETARCH',
        'RUN --mount=type=cache',
        'RUN --mount=type=secret',
        'COPY --link',
      ],
      bases: ['node:22-alpine', 'nginx:1.27-alpine'],
      versionArgs: ['SERVICE_VERSION'],
    },
    {
      name: 'a Go service built on the build platform, the last (unnamed) stage FROM distroless',
      text: GO,
      target: undefined,
      features: ['FROM --platform', 'ARG TARGETOS', 'ARG TARGETARCH', 'RUN --mount=type=cache'],
      bases: ['golang:1.22', 'gcr.io/distroless/static:nonroot'],
      versionArgs: ['ACME_VERSION'],
    },
    {
      name: 'heredocs and a version ARG only in a stage the target does not reach',
      text: 'FROM alpine AS tools\nARG SERVICE_VERSION\nRUN echo $SERVICE_VERSION\nFROM scratch AS out\nCOPY <<EOF /hello\nhi\nEOF\n',
      target: 'out',
      features: ['heredoc'],
      bases: [],
      versionArgs: [],
    },
  ])('$name', ({ text, target, features, bases, versionArgs }) => {
    const found = find(text, target);
    expect(found.stage).toBeDefined();
    expect(found.features).toEqual(features);
    expect(found.bases.map((b) => b.image)).toEqual(bases);
    expect(found.versionArgs).toEqual(versionArgs);
  });

  it('follows FROM <stage>, COPY --from and RUN --mount from= to the stages a target needs', () => {
    const found = find(MONOREPO, 'all-in-one');
    expect(found.stages.map((s) => s.name)).toEqual([
      'base',
      'deps',
      'build',
      'backend',
      'web',
      'all-in-one',
    ]);
    expect(find(MONOREPO, 'backend').stages.map((s) => s.name)).toEqual(['base', 'deps', 'build', 'backend']);
    const mount = find(
      'FROM alpine AS a\nRUN true\nFROM scratch AS b\nRUN --mount=from=a,target=/x true\n',
      'b',
    );
    expect(mount.stages.map((s) => s.name)).toEqual(['a', 'b']);
    expect(
      find('FROM alpine\nRUN true\nFROM scratch\nCOPY --from=0 /x /x\n').stages.map((s) => s.index),
    ).toEqual([0, 1]);
  });

  it('says where a target descends from, and which stages RUN on the target platform', () => {
    expect(find(MONOREPO, 'backend').root).toBe('node:22-alpine');
    expect(find(MONOREPO, 'backend').runsOnTarget).toEqual(['base', 'deps', 'build']);
    // Built on the build platform, cross-compiled: no emulation needed for another platform.
    expect(find(GO).runsOnTarget).toEqual([]);
    expect(find(GO).root).toBe('gcr.io/distroless/static:nonroot');
    expect(find('FROM scratch\nCOPY a /a\n').root).toBe('scratch');
  });

  it('tells a platform written out from the target platform (helper images pinned to amd64 by digest)', () => {
    // The shape of a Rust service's generated file: helper stages pinned to linux/amd64 by digest
    // (their scripts are the same on every platform), a cross build on the build platform, and a
    // final stage FROM --platform=$TARGETPLATFORM.
    const text = `# syntax=docker/dockerfile:1
# check=skip=FromPlatformFlagConstDisallowed,RedundantTargetPlatform
FROM --platform=linux/amd64 registry.example/acme/web@sha256:${'a'.repeat(64)} AS vault
FROM --platform=linux/amd64 registry.example/tools/xx@sha256:${'b'.repeat(64)} AS xx
RUN chmod +x /usr/bin/xx-*
FROM --platform=$BUILDPLATFORM rust:1-slim AS build
COPY --from=xx / /
ARG TARGETARCH
ARG ACME_VERSION
RUN xx-cargo build
FROM --platform=$TARGETPLATFORM debian:trixie-slim
RUN apt-get update
COPY --from=vault /web-vault ./web-vault
COPY --from=build /app/target/final/acme .
`;
    const found = find(text);
    expect(found.runsOnFixed).toEqual([{ stage: 'xx', platform: 'linux/amd64' }]);
    expect(found.runsOnTarget).toEqual(['3']);
    expect(found.bases.map((b) => [b.stage, b.platform])).toEqual([
      ['vault', 'linux/amd64'],
      ['xx', 'linux/amd64'],
      ['build', '$BUILDPLATFORM'],
      ['3', '$TARGETPLATFORM'],
    ]);
    expect(found.bases[0]!.image).toBe(`registry.example/acme/web@sha256:${'a'.repeat(64)}`);
    expect(found.versionArgs).toEqual(['ACME_VERSION']);
  });

  it('lists the URLs an ADD downloads, in both forms, args substituted, and no COPY or local ADD', () => {
    const text = `ARG UV=0.8.13
FROM python:3-slim AS deps
ADD https://astral.sh/uv/\${UV}/install.sh /uv-installer.sh
ADD --checksum=sha256:${'c'.repeat(64)} ["https://example.com/a.tgz", "http://example.com/b.tgz", "/opt/"]
ADD local.tgz /opt/
COPY https.txt /x
FROM deps
RUN true
`;
    expect(find(text).downloads).toEqual([
      { url: 'https://astral.sh/uv/0.8.13/install.sh', stage: 'deps', line: 3 },
      { url: 'https://example.com/a.tgz', stage: 'deps', line: 4 },
      { url: 'http://example.com/b.tgz', stage: 'deps', line: 4 },
    ]);
  });

  it('substitutes build args given over ARG defaults, and reports a FROM arg nobody sets', () => {
    expect(find(MONOREPO, 'backend', { NODE_IMAGE: 'registry.local/node:22' }).bases[0]?.image).toBe(
      'registry.local/node:22',
    );
    const open = find('ARG BASE\nFROM ${BASE}\nRUN true\n');
    expect(open.bases).toEqual([]);
    expect(open.unresolved).toEqual([{ from: '${BASE}', line: 2 }]);
    expect(find('ARG REG=ghcr.io\nARG IMG=${REG}/acme/base:1\nFROM $IMG\n').bases[0]?.image).toBe(
      'ghcr.io/acme/base:1',
    );
  });

  it('knows FROM ${BASE_IMAGE} is the configured base the engine loads, not an image to find', () => {
    const found = find('ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nARG SERVICE_VERSION\n', undefined, {
      BASE_IMAGE: 'oci-layout:.release/base/node:20',
    });
    expect(found.usesBaseImage).toBe(true);
    expect(found.bases).toEqual([]);
    expect(find(MONOREPO, 'backend').usesBaseImage).toBe(false);
  });

  // A Node monitoring service's production file: `ARG BASE_IMAGE=<its own base>` before the
  // stages, and its release stage `FROM $BASE_IMAGE` (bare, no braces). Its CI builds on that
  // default; a build arg of ours must not put the configured Node base in its place.
  it('leaves a BASE_IMAGE the Dockerfile defaults itself to the Dockerfile', () => {
    const own = [
      'ARG BASE_IMAGE=acme/monitor:base2',
      'FROM acme/monitor:builder-go AS build_healthcheck',
      'FROM acme/monitor:base2 AS build',
      'RUN npm ci --omit=dev',
      'COPY --from=build_healthcheck /app/extra/healthcheck /app/extra/healthcheck',
      'FROM $BASE_IMAGE AS release',
      'COPY --from=build /app /app',
      'FROM release AS rootless',
      '',
    ].join('\n');
    for (const target of ['release', 'rootless']) {
      const found = find(own, target);
      expect(configuredBaseArg(parseDockerfile(own))).toBe(false);
      expect(found.usesBaseImage).toBe(false);
      expect(found.bases.map((b) => [b.image, b.stage])).toEqual([
        ['acme/monitor:builder-go', 'build_healthcheck'],
        ['acme/monitor:base2', 'build'],
        ['acme/monitor:base2', 'release'],
      ]);
      expect(found.root).toBe('acme/monitor:base2');
    }
    // The project may still name another base for it, as `docker build --build-arg` would.
    const given = find(own, 'release', { BASE_IMAGE: 'registry.example/monitor:base3' });
    expect(given.usesBaseImage).toBe(false);
    expect(given.bases.at(-1)?.image).toBe('registry.example/monitor:base3');
    // Without a default, `FROM $BASE_IMAGE` (bare) is the configured base, as `${BASE_IMAGE}` is.
    const bare = find('ARG BASE_IMAGE\nFROM $BASE_IMAGE\n', undefined, {
      BASE_IMAGE: 'oci-layout:.release/base/node:20',
    });
    expect(bare.usesBaseImage).toBe(true);
    expect(bare.bases).toEqual([]);
  });

  // A Go service's file: global ARGs built on TARGETPLATFORM (which BuildKit sets in the global
  // scope) with `${VAR/from/to}`, and a FROM naming the result. Not an arg nobody gives.
  it('knows the platform args BuildKit sets globally, and ${VAR/from/to}, #, % substitution', () => {
    const go = [
      'ARG GO_VERSION=PLEASE_PROVIDE_GO_VERSION',
      'ARG __DASHES=${TARGETPLATFORM/\\//-}',
      'ARG __GO=${__DASHES/arm\\/v7/arm-7}',
      'FROM --platform=${BUILDPLATFORM} acme/build:${GO_VERSION}-${__GO} AS builder',
      'RUN make',
      'FROM debian:sid-slim',
      'COPY --from=builder /target /',
      '',
    ].join('\n');
    const at = (platform: string, buildArgs: Record<string, string> = { GO_VERSION: '1.25.1' }) =>
      dockerfileFindings(parseDockerfile(go), { buildArgs, versionNames: VERSION_NAMES, platform });
    expect(at('linux/amd64').unresolved).toEqual([]);
    expect(at('linux/amd64').bases.map((b) => b.image)).toEqual([
      'acme/build:1.25.1-linux-amd64',
      'debian:sid-slim',
    ]);
    expect(at('linux/arm/v7').bases[0]!.image).toBe('acme/build:1.25.1-linux-arm-7');
    expect(at('linux/arm64', {}).bases[0]!.image).toBe('acme/build:PLEASE_PROVIDE_GO_VERSION-linux-arm64');
    const values = { V: 'v2.7.3-rc.1', P: 'a/b/c' };
    expect(substitute('${V#v}|${V%-rc.1}|${V#x}|${P//\\//-}|${P/\\//-}|${NOPE/a/b}', values)).toBe(
      '2.7.3-rc.1|v2.7.3|v2.7.3-rc.1|a-b-c|a-b/c|${NOPE/a/b}',
    );
  });

  it('lists the secret ids RUN --mount=type=secret reads (by id, else by target file name)', () => {
    expect(find(MONOREPO, 'backend').secretIds).toEqual(['npmrc']);
    expect(
      find('FROM alpine\nRUN --mount=type=secret,target=/run/secrets/token cat /run/secrets/token\n')
        .secretIds,
    ).toEqual(['token']);
  });

  it("lists the label keys its stages set (a project's own source label)", () => {
    const text =
      'FROM golang AS build\nLABEL ignored=1\nFROM alpine\nLABEL org.opencontainers.image.title=Miniflux\nLABEL "org.opencontainers.image.source"=https://example.org/x a.b="c d"\n';
    expect(find(text).labelKeys).toEqual([
      'org.opencontainers.image.title',
      'org.opencontainers.image.source',
      'a.b',
    ]);
  });

  it('has no stage for a target the file does not name', () => {
    expect(find(MONOREPO, 'frontend').stage).toBeUndefined();
    expect(find(MONOREPO, 'BACKEND').stage?.name).toBe('backend'); // stage names compare lower-cased
  });
});

describe('substitute', () => {
  it.each([
    ['$A/${B}', { A: 'x', B: 'y' }, 'x/y'],
    ['${A:-fallback}', {}, 'fallback'],
    ['${A:-fallback}', { A: 'set' }, 'set'],
    ['${A:+alt}', { A: 'set' }, 'alt'],
    ['${A:+alt}', {}, ''],
    ['$MISSING', {}, '$MISSING'],
  ])('%s with %o is %s', (text, values, expected) => {
    expect(substitute(text, values as Record<string, string>)).toBe(expected);
  });
});
