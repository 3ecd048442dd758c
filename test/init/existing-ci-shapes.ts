// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ }} and ${VAR} are GitHub's and Compose's syntax
/**
 * Repositories whose release already happens in their CI, in the three shapes `release init`
 * got wrong (our own names and files, the shapes only): a Python API and a Vite client whose
 * production compose file pulls the images CI builds; a Go service whose Dockerfiles are
 * `build/package/*.dockerfile`, built by a pre-release workflow, with a CLI under `cmd/`; a pnpm
 * monorepo with one Dockerfile of four targets, compose profiles (one deprecated, one container
 * under two), CalVer tags and a CLI package of its own version line.
 */
export interface Shape {
  files: Record<string, string>;
  /** Tags to make, oldest first. */
  tags: string[];
}

export const PYTHON_VITE: Shape = {
  tags: ['v1.3.0', 'v1.4.0'],
  files: {
    'pyproject.toml': '[project]\nname = "ledger"\nversion = "1.4.0"\n',
    'docker-compose.yml': `x-api: &api
  image: ghcr.io/acme/ledger-api:\${LEDGER_TAG:-latest}
  # build:
  #   context: .
  #   dockerfile: api/Dockerfile
  env_file: .env
  restart: unless-stopped

services:
  api:
    <<: *api
    command: gunicorn ledger.app:app --bind 0.0.0.0:8000
  init:
    <<: *api
    command: python -m ledger.migrate
    restart: "no"
  worker:
    <<: *api
    command: celery -A ledger.tasks worker
  scheduler:
    <<: *api
    command: celery -A ledger.tasks beat
  client:
    image: ghcr.io/acme/ledger-client:\${LEDGER_TAG:-latest}
    ports: ["80:80"]
  db:
    image: postgres:16
  redis:
    image: redis:7
`,
    'docker-compose.dev.yml': `services:
  api:
    build:
      context: .
      dockerfile: api/Dockerfile
  client:
    build:
      context: client
      target: development
`,
    'api/Dockerfile':
      'FROM python:3.12-slim\nARG LEDGER_VERSION\nENV LEDGER_VERSION=$LEDGER_VERSION\nCOPY api/pyproject.toml /app/\nCOPY api/ledger /app/ledger\nRUN pip install /app\nCMD ["gunicorn", "ledger.app:app"]\n',
    'api/pyproject.toml': '[project]\nname = "ledger-api"\nversion = "0.0.0"\n',
    'api/ledger/__init__.py': '',
    'client/Dockerfile':
      'FROM node:22 AS base\nWORKDIR /app\nCOPY package.json .\nFROM base AS development\nCMD ["npm", "run", "dev"]\nFROM base AS build\nARG VITE_LEDGER_VERSION\nCOPY . .\nRUN npm run build\nFROM nginx:1.27 AS production\nCOPY --from=build /app/dist /usr/share/nginx/html\n',
    'client/package.json': JSON.stringify({
      name: 'ledger-client',
      private: true,
      scripts: { dev: 'vite', build: 'vite build' },
    }),
    '.github/workflows/release.yml': `name: release
on:
  push:
    tags: ['v*']
env:
  REGISTRY: ghcr.io
jobs:
  api:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: meta
        uses: docker/metadata-action@v5
        with:
          images: \${{ env.REGISTRY }}/acme/ledger-api
          tags: |
            type=semver,pattern={{version}}
            type=raw,value=latest
      - uses: docker/build-push-action@v6
        with:
          context: .
          file: ./api/Dockerfile
          push: true
          tags: \${{ steps.meta.outputs.tags }}
          build-args: |
            LEDGER_VERSION=\${{ github.ref_name }}
  client:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: meta
        uses: docker/metadata-action@v5
        with:
          images: \${{ env.REGISTRY }}/acme/ledger-client
      - uses: docker/build-push-action@v6
        with:
          context: ./client
          target: production
          push: true
          tags: \${{ steps.meta.outputs.tags }}
          build-args: VITE_LEDGER_VERSION=\${{ github.ref_name }}
  test-image:
    runs-on: ubuntu-latest
    steps:
      - uses: docker/build-push-action@v6
        with:
          context: .
          file: ./api/Dockerfile
          load: true
          tags: ledger-api:test
`,
  },
};

const serverJob = (name: string, target: string, extra = '') => `  ${name}:
    runs-on: ubuntu-latest
    steps:
      - id: tag
        run: echo "tag=\${GITHUB_REF#refs/tags/}" >> $GITHUB_OUTPUT
      - name: Build
        run: |
          DOCKER_BUILDKIT=1 docker build -f ./build/package/servers.dockerfile \\
            -t ghcr.io/acme/relay/${name}:\${{ steps.tag.outputs.tag }} \\
            --build-arg SERVER_TARGET=${target} \\
            --build-arg VERSION=\${{ steps.tag.outputs.tag }} ${extra}\\
            --platform linux/amd64 \\
            .
      - name: Push
        run: docker push ghcr.io/acme/relay/${name}:\${{ steps.tag.outputs.tag }}
`;

export const GO_SERVICE: Shape = {
  tags: ['v0.9.0', 'v1.0.0'],
  files: {
    'go.mod': 'module example.com/acme/relay\n\ngo 1.22\n',
    'cmd/relay-api/main.go': 'package main\n\nfunc main() {}\n',
    'cmd/relay-engine/main.go': 'package main\n\nfunc main() {}\n',
    'cmd/relay-cli/main.go': 'package main\n\nfunc main() {}\n',
    'cmd/relay-cli/.goreleaser.yml':
      'version: 2\nproject_name: relay\nbuilds:\n  - id: relay\n    main: ./main.go\n    binary: relay\n    ldflags:\n      - -X example.com/acme/relay/cmd/relay-cli/cli.Version={{.Version}}\n',
    'build/package/servers.dockerfile':
      'FROM golang:1.22-alpine AS build\nARG VERSION=v0.1.0-alpha.0\nARG SERVER_TARGET\nWORKDIR /src\nCOPY . .\nRUN go build -ldflags "-X main.Version=${VERSION}" -o /bin/relay-${SERVER_TARGET} ./cmd/relay-${SERVER_TARGET}\nFROM alpine:3.20 AS deployment\nARG SERVER_TARGET=engine\nENV SERVER_TARGET=${SERVER_TARGET}\nCOPY --from=build /bin/relay-${SERVER_TARGET} /relay/\nCMD ["/bin/sh", "-c", "/relay/relay-${SERVER_TARGET}"]\n',
    'build/package/frontend.dockerfile':
      'FROM node:20-alpine AS build\nWORKDIR /app\nCOPY frontend .\nRUN npm ci && npm run build\nFROM nginx:alpine\nCOPY --from=build /app/dist /usr/share/nginx/html\n',
    'build/package/e2e-python.dockerfile': 'FROM python:3.12\nCOPY sdks/python /sdk\n',
    'build/package/lite.dockerfile':
      'ARG RELAY_API_IMAGE\nFROM $RELAY_API_IMAGE AS api\nFROM alpine:3.20\nCOPY --from=api /relay/relay-api /relay/\nCMD ["/relay/relay-api"]\n',
    'frontend/package.json': JSON.stringify({ name: 'relay-frontend', scripts: { build: 'vite build' } }),
    'examples/python/quickstart/pyproject.toml':
      '[project]\nname = "relay-quickstart"\nversion = "0.1.0"\n[project.scripts]\nsimple = "quickstart.simple:main"\nworker = "quickstart.worker:main"\n',
    'hack/dev/Dockerfile.client-go': 'FROM golang:1.22\n',
    'docker-compose.yml': 'services:\n  postgres:\n    image: postgres:16\n  nats:\n    image: nats:2\n',
    '.github/workflows/pre-release.yaml': `name: pre-release
on:
  push:
    tags:
      - "v*"
jobs:
${serverJob('relay-api', 'api')}${serverJob('relay-engine', 'engine')}${serverJob('relay-api-dev', 'api', '--build-arg GO_BUILD_TAGS=authdisabled ')}  relay-frontend:
    runs-on: ubuntu-latest
    steps:
      - run: |
          docker build -f ./build/package/frontend.dockerfile -t ghcr.io/acme/relay/relay-frontend:\${GITHUB_REF_NAME} .
          docker push ghcr.io/acme/relay/relay-frontend:\${GITHUB_REF_NAME}
  relay-lite:
    runs-on: ubuntu-latest
    steps:
      - run: |
          docker build -f ./build/package/servers.dockerfile --build-arg SERVER_TARGET=api -t relay-api-tmp .
          docker build -f ./build/package/lite.dockerfile --build-arg RELAY_API_IMAGE=relay-api-tmp -t ghcr.io/acme/relay/relay-lite:\${GITHUB_REF_NAME} .
          docker push ghcr.io/acme/relay/relay-lite:\${GITHUB_REF_NAME}
  e2e-python:
    runs-on: ubuntu-latest
    steps:
      - run: |
          docker build -f ./build/package/e2e-python.dockerfile -t ghcr.io/acme/relay/relay-e2e-python:latest .
          docker push ghcr.io/acme/relay/relay-e2e-python:latest
`,
    '.github/workflows/cli-release.yaml': `name: cli
on:
  push:
    tags: ["v*"]
jobs:
  release:
    runs-on: ubuntu-latest
    steps:
      - uses: goreleaser/goreleaser-action@v6
        with:
          args: release --clean
          workdir: cmd/relay-cli
`,
  },
};

const stage = (name: string, command: string) =>
  `FROM node_base AS ${name}\nCOPY --from=base_builder /app /app\nCMD ["node", "${command}"]\n`;
const pushJob = (
  what: string,
  target: string,
) => `      - name: Build and push the ${what} container by digest
        uses: docker/build-push-action@v6
        with:
          context: .
          file: ./prod.Dockerfile
          target: ${target}
          platforms: \${{ matrix.platform.platform }}
          tags: \${{ secrets.DOCKER_ORG_NAME }}/\${{ secrets.DOCKER_${target.toUpperCase()}_NAME }}
          outputs: type=image,push-by-digest=true,name-canonical=true,push=true
`;

export const PNPM_MONOREPO: Shape = {
  tags: ['2026.5.0', '2026.6.0'],
  files: {
    'package.json': JSON.stringify({
      name: 'hopper-app',
      private: true,
      scripts: { preinstall: 'npx only-allow pnpm' },
    }),
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
    'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    'packages/hopper-cli/package.json': JSON.stringify({
      name: '@acme/cli',
      version: '0.14.2',
      bin: { hop: './bin/hop.js' },
    }),
    'packages/hopper-cli/bin/hop.js': '#!/usr/bin/env node\n',
    'packages/hopper-backend/package.json': JSON.stringify({ name: 'hopper-backend', version: '2026.6.0' }),
    'packages/hopper-backend/Dockerfile': 'FROM node:20\nCMD ["node", "dist/main.js"]\n',
    'prod.Dockerfile': `FROM alpine:3.20 AS node_base\nRUN apk add nodejs\nFROM node_base AS base_builder\nARG HOPPER_VERSION\nCOPY . /app\nRUN pnpm build\n${stage('backend', 'backend/main.js')}${stage('app', 'web/server.js')}${stage('sh_admin', 'admin/server.js')}${stage('aio', 'aio.js')}`,
    'docker-compose.yml': `# Profiles: default (all in one), default-no-db, backend, app, admin, deprecated.
services:
  hopper-backend:
    profiles: ["backend", "just-backend", "app", "admin"]
    build:
      dockerfile: prod.Dockerfile
      context: .
      target: backend
  hopper-app:
    profiles: ["app"]
    build:
      dockerfile: prod.Dockerfile
      context: .
      target: app
  hopper-sh-admin:
    profiles: ["admin"]
    build:
      dockerfile: prod.Dockerfile
      context: .
      target: sh_admin
  hopper-aio:
    profiles: ["default"]
    container_name: hopper-aio
    build:
      dockerfile: prod.Dockerfile
      context: .
      target: aio
  hopper-aio-no-db:
    profiles: ["default-no-db"]
    container_name: hopper-aio
    build:
      dockerfile: prod.Dockerfile
      context: .
      target: aio
  hopper-migrate:
    profiles: ["default", "just-backend", "backend", "app", "admin"]
    build:
      dockerfile: prod.Dockerfile
      context: .
      target: backend
    command: sh -c "pnpm exec prisma migrate deploy"
  hopper-db:
    profiles: ["default", "backend", "app", "admin"]
    image: postgres:15
  hopper-old-backend:
    profiles: ["deprecated"]
    build:
      dockerfile: packages/hopper-backend/Dockerfile
      context: .
  hopper-old-app:
    profiles: ["deprecated"]
    image: acme/hopper-old-app:latest
`,
    '.github/workflows/release-push-docker.yml': `name: release
on:
  push:
    tags:
      - '*.*.*'
jobs:
  build:
    strategy:
      matrix:
        platform:
          - { platform: linux/amd64, cache: amd64 }
          - { platform: linux/arm64, cache: arm64 }
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
${pushJob('backend', 'backend')}${pushJob('frontend', 'app')}${pushJob('admin dashboard', 'sh_admin')}${pushJob('AIO', 'aio')}  merge:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: |
          docker buildx imagetools create -t \${{ secrets.DOCKER_ORG_NAME }}/\${{ secrets.DOCKER_BACKEND_NAME }}:\${{ github.ref_name }} x
          docker buildx imagetools create -t \${{ secrets.DOCKER_ORG_NAME }}/\${{ secrets.DOCKER_BACKEND_NAME }}:latest x
`,
  },
};
