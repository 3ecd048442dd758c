// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ }} in these strings is GitHub's expression syntax
import { describe, expect, it } from 'vitest';
import { readGithubWorkflow, readGithubWorkflows, type WorkflowBuild } from './github-workflows.ts';

const at = '.github/workflows/release.yml';

function builds(text: string): WorkflowBuild[] {
  const read = readGithubWorkflow(at, text);
  expect(read.unreadable).toBeUndefined();
  return read.builds;
}

function only<K extends keyof WorkflowBuild>(list: WorkflowBuild[], keys: K[]): Pick<WorkflowBuild, K>[] {
  return list.map(
    (b) => Object.fromEntries(keys.filter((k) => k in b).map((k) => [k, b[k]])) as Pick<WorkflowBuild, K>,
  );
}

describe('the triggers of a workflow', () => {
  it.each([
    ['on: push', { events: ['push'], tags: [], branches: [] }],
    ['on: [push, workflow_dispatch]', { events: ['push', 'workflow_dispatch'], tags: [], branches: [] }],
    [
      "on:\n  push:\n    tags: ['*.*.*']\n    branches: [main]\n",
      { events: ['push'], tags: ['*.*.*'], branches: ['main'] },
    ],
    ['on:\n  push:\n    tags: v*\n', { events: ['push'], tags: ['v*'], branches: [] }],
    [
      "on:\n  push:\n    tags-ignore: ['*-rc*']\n  release:\n    types: [published]\n",
      { events: ['push', 'release'], tags: [], branches: [], tagsIgnore: ['*-rc*'], release: ['published'] },
    ],
    ['on:\n  release:\n', { events: ['release'], tags: [], branches: [], release: [] }],
  ])('%j', (on, expected) => {
    expect(readGithubWorkflow(at, `${on}\njobs: {}\n`).triggers).toMatchObject(expected);
  });
});

describe('the image builds of a workflow', () => {
  it('reads build-push-action steps of a written-out matrix, a missing key as not given', () => {
    const list = builds(`on: { push: { tags: ['v*'] } }
env:
  REGISTRY: ghcr.io
jobs:
  images:
    strategy:
      matrix:
        include:
          - name: api
            file: ./api/Dockerfile
          - name: client
            context: ./client
            target: production
    steps:
      - uses: docker/build-push-action@v6
        with:
          context: \${{ matrix.context || '.' }}
          file: \${{ matrix.file }}
          target: \${{ matrix.target }}
          push: true
          platforms: linux/amd64,linux/arm64
          tags: \${{ env.REGISTRY }}/acme/acme-\${{ matrix.name }}:latest
          build-args: |
            VERSION=\${{ github.ref_name }}
            MODE=prod
`);
    expect(
      only(list, ['context', 'file', 'target', 'images', 'platforms', 'push', 'pushesLatest', 'buildArgs']),
    ).toEqual([
      {
        // `a || 'b'` as GitHub evaluates it on strings.
        context: '.',
        file: './api/Dockerfile',
        images: ['ghcr.io/acme/acme-api'],
        platforms: ['linux/amd64', 'linux/arm64'],
        push: true,
        pushesLatest: true,
        buildArgs: { VERSION: '${{ github.ref_name }}', MODE: 'prod' },
      },
      {
        context: './client',
        target: 'production',
        images: ['ghcr.io/acme/acme-client'],
        platforms: ['linux/amd64', 'linux/arm64'],
        push: true,
        pushesLatest: true,
        buildArgs: { VERSION: '${{ github.ref_name }}', MODE: 'prod' },
      },
    ]);
    expect(list[1]!.at).toBe(
      `${at} job images (matrix name=client, context=./client, target=production) step #1`,
    );
  });

  it.each([
    // [matrix, the contexts built]
    ['{ svc: [api, web] }', ['api', 'web']],
    ['{ svc: [api, web], arch: [amd64, arm64] }', ['api', 'api', 'web', 'web']],
    ['{ svc: [api, web], exclude: [{ svc: web }] }', ['api']],
    ['{ svc: [api], include: [{ svc: worker }] }', ['api', 'worker']],
    // an include that changes no original value extends the combination, not a new one
    ['{ svc: [api], include: [{ svc: api, extra: x }] }', ['api']],
    ['{ include: [{ svc: a }, { svc: b }, { svc: c }] }', ['a', 'b', 'c']],
  ])('expands the matrix %s', (matrix, contexts) => {
    const list = builds(
      `on: push\njobs:\n  b:\n    strategy:\n      matrix: ${matrix}\n    steps:\n      - uses: docker/build-push-action@v5\n        with:\n          context: \${{ matrix.svc }}\n          platforms: linux/\${{ matrix.arch }}\n`,
    );
    expect(list.map((b) => b.context)).toEqual(contexts);
  });

  it.each([
    ["${{ env.X || 'dflt' }}", 'dflt'],
    ["${{ matrix.dir || env.Y || 'dflt' }}", 'y'],
    ['${{ github.workspace }}/web', '${{ github.workspace }}/web'],
    ["${{ format('{0}/x', env.Y) }}", "${{ format('{0}/x', env.Y) }}"],
  ])('evaluates %s to %s, or keeps it as written', (expression, context) => {
    const [build] = builds(
      `on: push\nenv:\n  X: ''\n  Y: y\njobs:\n  b:\n    steps:\n      - uses: docker/build-push-action@v5\n        with:\n          context: "${expression}"\n`,
    );
    expect(build!.context).toBe(context);
  });

  it('leaves a matrix given by an expression unexpanded, its values as written', () => {
    const list = builds(
      'on: push\njobs:\n  b:\n    strategy:\n      matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}\n    steps:\n      - uses: docker/build-push-action@v5\n        with:\n          context: ${{ matrix.dir }}\n',
    );
    expect(list.map((b) => b.context)).toEqual(['${{ matrix.dir }}']);
  });

  it.each([
    // [metadata tags input, flavor, pushesVersion, pushesLatest, latestWhen]
    [undefined, undefined, true, true, undefined],
    ['type=semver,pattern={{version}}', undefined, true, true, undefined],
    ['type=semver,pattern={{version}}', 'latest=false', true, false, undefined],
    ['type=ref,event=branch\ntype=sha', undefined, false, false, undefined],
    ['type=ref,event=tag', undefined, true, true, undefined],
    ['type=pep440,pattern={{version}}', undefined, true, true, undefined],
    [
      'type=sha\ntype=raw,value=latest,enable={{is_default_branch}}',
      undefined,
      false,
      true,
      '{{is_default_branch}}',
    ],
    ['type=raw,value=latest,enable=false', undefined, false, false, undefined],
    [
      'type=semver,pattern={{version}}',
      "latest=${{ startsWith(github.ref, 'refs/tags/v2') }}",
      true,
      true,
      "${{ startsWith(github.ref, 'refs/tags/v2') }}",
    ],
    ['type=sha', 'latest=true', false, true, undefined],
  ])('metadata-action tags %j, flavor %j: version %s, latest %s', (tags, flavor, version, latest, when) => {
    const withLines = [
      '          images: |\n            ghcr.io/acme/app\n            docker.io/acme/app',
      ...(tags
        ? [
            `          tags: |\n${tags
              .split('\n')
              .map((l) => `            ${l}`)
              .join('\n')}`,
          ]
        : []),
      ...(flavor ? [`          flavor: ${flavor}`] : []),
    ];
    const [build] = builds(`on: push
jobs:
  b:
    steps:
      - id: meta
        uses: docker/metadata-action@v5
        with:
${withLines.join('\n')}
      - uses: docker/build-push-action@v6
        with:
          push: \${{ github.event_name != 'pull_request' }}
          tags: \${{ steps.meta.outputs.tags }}
`);
    expect(build).toMatchObject({
      images: ['ghcr.io/acme/app', 'docker.io/acme/app'],
      tags: [],
      push: 'conditional',
      pushesVersion: version,
      pushesLatest: latest,
    });
    expect(build!.latestWhen).toBe(when);
    expect(build!.context).toBeUndefined();
  });

  it.each([
    // [run line, what is read]
    [
      'docker build -f build/package/app.dockerfile --build-arg BIN=server -t ghcr.io/acme/server:${{ github.ref_name }} .',
      {
        tool: 'docker build',
        context: '.',
        file: 'build/package/app.dockerfile',
        buildArgs: { BIN: 'server' },
        push: false,
        pushesVersion: true,
      },
    ],
    [
      'docker buildx build --platform=linux/amd64,linux/arm64 --target app --push -t "$IMAGE:latest" -t $IMAGE:$VERSION ./web',
      {
        tool: 'docker buildx build',
        context: './web',
        target: 'app',
        platforms: ['linux/amd64', 'linux/arm64'],
        push: true,
        images: ['ghcr.io/acme/web'],
        pushesLatest: true,
        pushesVersion: true,
      },
    ],
    [
      'sudo docker image build -tacme/api:dev -fapi/Dockerfile api && docker push acme/api:dev',
      {
        tool: 'docker build',
        context: 'api',
        file: 'api/Dockerfile',
        tags: ['acme/api:dev'],
        push: true,
        pushesLatest: false,
      },
    ],
    [
      'docker buildx build --output type=image,name=x,push=true .',
      { tool: 'docker buildx build', context: '.', push: true },
    ],
    [
      'docker buildx bake -f docker-bake.hcl --push release',
      {
        tool: 'docker buildx bake',
        bake: { files: ['docker-bake.hcl'], targets: ['release'], set: [] },
        push: true,
      },
    ],
  ])('reads the run line %s', (line, expected) => {
    const list = builds(
      `on: push\nenv:\n  IMAGE: ghcr.io/acme/web\njobs:\n  b:\n    steps:\n      - env:\n          VERSION: 1.2.3\n        run: |\n          echo building\n          ${line}\n`,
    );
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject(expected);
  });

  it('joins continued lines and pushes a tag a later step pushes', () => {
    const list = builds(`on: push
jobs:
  b:
    steps:
      - run: >-
          docker build
          -t ghcr.io/acme/api:latest .
      - run: |
          docker build \\
            --file worker/Dockerfile \\
            -t ghcr.io/acme/worker:latest \\
            worker
      - run: docker push ghcr.io/acme/api:latest
`);
    expect(only(list, ['context', 'file', 'push'])).toEqual([
      { context: '.', push: true },
      { context: 'worker', file: 'worker/Dockerfile', push: false },
    ]);
  });

  it('reads `docker build` from the working directory of its step, its job or the workflow', () => {
    const list = builds(`on: push
defaults:
  run:
    working-directory: ./apps
jobs:
  a:
    steps:
      - working-directory: ./apps/playwright-service
        run: docker build . -t ghcr.io/acme/playwright:latest
  b:
    defaults:
      run:
        working-directory: services/api
    steps:
      - run: docker build -f docker/Dockerfile --target prod ..
  c:
    steps:
      - run: docker build -f /abs/Dockerfile web
`);
    expect(only(list, ['context', 'file', 'target'])).toEqual([
      { context: 'apps/playwright-service' },
      { context: 'services/api/..', file: 'services/api/docker/Dockerfile', target: 'prod' },
      { context: 'apps/web', file: '/abs/Dockerfile' },
    ]);
  });

  it('moves latest and a version tag through imagetools in another job, for a build pushed by digest', () => {
    const read = readGithubWorkflow(
      at,
      `on: { push: { tags: ['*.*.*'] } }
jobs:
  build:
    strategy:
      matrix:
        platform: [{ platform: linux/amd64, cache: amd }, { platform: linux/arm64, cache: arm }]
    steps:
      - uses: docker/build-push-action@v6
        with:
          context: .
          file: ./prod.Dockerfile
          target: backend
          platforms: \${{ matrix.platform.platform }}
          tags: \${{ secrets.ORG }}/backend
          outputs: type=image,push-by-digest=true,name-canonical=true,push=true
  merge:
    needs: build
    steps:
      - run: |
          docker buildx imagetools create -t \${{ secrets.ORG }}/backend:\${{ github.ref_name }} $(printf 'x@sha256:%s ' *)
          docker buildx imagetools create -t \${{ secrets.ORG }}/backend:latest $(printf 'x@sha256:%s ' *)
`,
    );
    expect(read.pushed).toEqual([
      '${{secrets.ORG}}/backend:${{github.ref_name}}',
      '${{secrets.ORG}}/backend:latest',
    ]);
    expect(read.movesLatest).toBe(true);
    expect(only(read.builds, ['target', 'platforms', 'push', 'pushesLatest', 'pushesVersion'])).toEqual([
      { target: 'backend', platforms: ['linux/amd64'], push: true, pushesLatest: true, pushesVersion: true },
      { target: 'backend', platforms: ['linux/arm64'], push: true, pushesLatest: true, pushesVersion: true },
    ]);
  });

  it('reads bake-action steps with a metadata bake file', () => {
    const [build] = builds(`on: { push: { tags: ['*.*.*'] } }
jobs:
  b:
    steps:
      - id: meta
        uses: docker/metadata-action@v5
        with:
          images: ghcr.io/acme/app
          tags: type=semver,pattern={{version}}
      - uses: docker/bake-action@v6
        with:
          files: |
            ./docker-bake.hcl
            \${{ steps.meta.outputs.bake-file }}
          targets: backend,app
          push: true
          set: |
            *.platform=linux/amd64
`);
    expect(build).toMatchObject({
      tool: 'bake-action',
      bake: { files: ['./docker-bake.hcl'], targets: ['backend', 'app'], set: ['*.platform=linux/amd64'] },
      images: ['ghcr.io/acme/app'],
      push: true,
      pushesVersion: true,
      pushesLatest: true,
    });
  });

  it("reads a local reusable workflow's builds with the inputs its caller gives, under the caller", () => {
    const read = readGithubWorkflows([
      {
        path: '.github/workflows/pre-release.yml',
        text: `on: { push: { tags: ['v*-rc*'] } }
jobs:
  images:
    strategy:
      matrix:
        image: [server, dashboard]
    uses: ./.github/workflows/build-image.yml
    with:
      name: \${{ matrix.image }}
      push: true
`,
      },
      {
        path: '.github/workflows/build-image.yml',
        text: `on:
  workflow_call:
    inputs:
      name: { type: string }
      dockerfile: { type: string, default: build/package/app.dockerfile }
jobs:
  build:
    steps:
      - uses: docker/build-push-action@v6
        with:
          file: \${{ inputs.dockerfile }}
          build-args: BIN=\${{ inputs.name }}
          tags: ghcr.io/acme/\${{ inputs.name }}:\${{ github.ref_name }}
          push: \${{ inputs.push }}
`,
      },
    ]);
    const caller = read[0]!;
    expect(caller.triggers.tags).toEqual(['v*-rc*']);
    expect(only(caller.builds, ['file', 'buildArgs', 'images', 'push', 'pushesVersion', 'via'])).toEqual([
      {
        file: 'build/package/app.dockerfile',
        buildArgs: { BIN: 'server' },
        images: ['ghcr.io/acme/server'],
        push: true,
        pushesVersion: true,
        via: '.github/workflows/build-image.yml',
      },
      {
        file: 'build/package/app.dockerfile',
        buildArgs: { BIN: 'dashboard' },
        images: ['ghcr.io/acme/dashboard'],
        push: true,
        pushesVersion: true,
        via: '.github/workflows/build-image.yml',
      },
    ]);
    // The callee alone: its inputs unknown, kept as written.
    expect(read[1]!.builds[0]!.images).toEqual(['ghcr.io/acme/${{inputs.name}}']);
  });

  it('stops at a workflow that calls itself', () => {
    const read = readGithubWorkflows([
      {
        path: '.github/workflows/a.yml',
        text: 'on: workflow_call\njobs:\n  a:\n    uses: ./.github/workflows/a.yml\n',
      },
    ]);
    expect(read[0]!.builds).toEqual([]);
  });
});

describe('hostile workflows', () => {
  it.each([
    ['not YAML', 'on: [push\njobs: {'],
    [
      'an alias bomb',
      `${[
        'a: &a ["x","x","x","x","x","x","x","x","x"]',
        ...Array.from(
          { length: 8 },
          (_, i) =>
            `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
              .fill(`*${String.fromCharCode(97 + i)}`)
              .join(',')}]`,
        ),
      ].join('\n')}\non: push\n`,
    ],
    ['a list', '- a\n- b\n'],
    ['over 2 MB', `on: push\n#${'x'.repeat(3 * 1024 * 1024)}\n`],
  ])('says why it cannot read %s, and reads no build', (_, text) => {
    const read = readGithubWorkflow(at, text);
    expect(read.unreadable).toMatch(/\w/);
    expect(read.builds).toEqual([]);
  });

  it('caps a huge matrix, and reads a 1 MB line in under a second (linear readers)', () => {
    const values = Array.from({ length: 50 }, (_, i) => `v${i}`).join(', ');
    const huge = builds(
      `on: push\njobs:\n  b:\n    strategy:\n      matrix: { a: [${values}], b: [${values}], c: [${values}] }\n    steps:\n      - uses: docker/build-push-action@v5\n        with:\n          context: \${{ matrix.a }}-\${{ matrix.b }}-\${{ matrix.c }}\n`,
    );
    expect(huge.length).toBeLessThanOrEqual(256);
    const mb = 1024 * 1024;
    const texts = [
      `on: push\njobs:\n  b:\n    steps:\n      - run: docker build ${'-t x '.repeat(mb / 5)} .\n`,
      `on: push\njobs:\n  b:\n    steps:\n      - run: echo ${'${{ '.repeat(mb / 4)}\n`,
      `on: push\njobs:\n  b:\n    steps:\n      - run: "docker build ${'\\\\'.repeat(mb / 2)}"\n`,
      `on: push\njobs:\n  b:\n    steps:\n      - uses: docker/metadata-action@v5\n        id: m\n        with:\n          tags: "${'type=raw,'.repeat(mb / 10)}"\n          images: "${'${{,'.repeat(mb / 4)}"\n      - uses: docker/build-push-action@v5\n        with:\n          tags: \${{ steps.m.outputs.tags }} ${'a:'.repeat(mb / 2)}\n`,
    ];
    for (const text of texts) {
      let best = Number.POSITIVE_INFINITY;
      // The best of three: the time of the work, not of a busy neighbour on a shared machine.
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        readGithubWorkflow(at, text);
        best = Math.min(best, (performance.now() - started) / 1000);
      }
      // A deadline, not a speed target (tens of milliseconds here; a backtracking pattern takes
      // minutes): the target, under 1 s at 1 MB, is `npm run bench:init`'s.
      expect(best).toBeLessThan(15);
    }
  });
});
