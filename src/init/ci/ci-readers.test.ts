// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is bake's, GitLab's and the shell's syntax
import { describe, expect, it } from 'vitest';
import { bakeBuild, bakeTargets, readBakeFile } from './docker-bake.ts';
import { dockerCommandsOf } from './docker-commands.ts';
import { readGitlabCi } from './gitlab-ci.ts';
import { readGoreleaser } from './goreleaser.ts';
import { readHcl } from './hcl-subset.ts';

const BAKE = `// the release images
variable "REGISTRY" {
  default = "ghcr.io/acme"
}
variable "TAG" { default = "latest" }

group "default" {
  targets = ["backend", "app"]
}

target "_common" {
  context = "."
  dockerfile = "prod.Dockerfile"
  args = { NODE_ENV = "production", BUILD = "1" }
  platforms = ["linux/amd64", "linux/arm64"]
}

target "backend" {
  inherits = ["_common"]
  target = "backend"
  args = { BUILD = "2" }
  tags = ["\${REGISTRY}/backend:\${TAG}", "\${REGISTRY}/backend:latest"]
}

target "app" {
  inherits = ["_common"]
  target = "app"
  tags = notequal("", TAG) ? ["\${REGISTRY}/app:\${TAG}"] : []
  /* a block comment */
  labels = { "org.opencontainers.image.title" = "app" }
}

target "e2e" {
  context = "tests"
}
`;

describe('docker-bake files', () => {
  it('reads targets with what they inherit, variables replaced, the default group or the targets named', () => {
    const read = readBakeFile('docker-bake.hcl', BAKE);
    expect(read.unreadable).toBeUndefined();
    expect(read.groups).toEqual({ default: ['backend', 'app'] });
    const [backend, app] = bakeTargets(read, []);
    expect(backend).toEqual({
      name: 'backend',
      context: '.',
      dockerfile: 'prod.Dockerfile',
      target: 'backend',
      args: { NODE_ENV: 'production', BUILD: '2' },
      platforms: ['linux/amd64', 'linux/arm64'],
      tags: ['ghcr.io/acme/backend:latest', 'ghcr.io/acme/backend:latest'],
    });
    // A conditional is an expression: left alone, not guessed.
    expect(app).toMatchObject({ name: 'app', target: 'app', tags: [] });
    expect(bakeTargets(read, ['e2e']).map((t) => t.name)).toEqual(['e2e']);
    expect(bakeTargets(read, ['default', 'e2e']).map((t) => t.name)).toEqual(['backend', 'app', 'e2e']);
    expect(
      bakeBuild(readBakeFile('deploy/docker-bake.hcl', BAKE), backend!, {
        at: 'x',
        push: true,
        images: [],
        pushesLatest: false,
        pushesVersion: false,
      }),
    ).toMatchObject({
      context: 'deploy/.',
      file: 'prod.Dockerfile',
      fileBase: 'context',
      images: ['ghcr.io/acme/backend'],
      pushesLatest: true,
    });
  });

  it('reads docker-bake.json the same way', () => {
    const read = readBakeFile(
      'docker-bake.json',
      JSON.stringify({
        variable: { REG: { default: 'docker.io/acme' } },
        group: { default: { targets: ['api'] } },
        target: { api: { context: 'api', target: 'prod', tags: ['${REG}/api:1.0.0'], args: { A: '1' } } },
      }),
    );
    expect(bakeTargets(read, [])).toEqual([
      {
        name: 'api',
        context: 'api',
        target: 'prod',
        args: { A: '1' },
        platforms: [],
        tags: ['docker.io/acme/api:1.0.0'],
      },
    ]);
  });

  it.each([
    ['an unclosed string', 'target "a" {\n  context = "x\n}\n'],
    ['an unclosed block', 'target "a" {\n  context = "x"\n'],
    ['nesting past the cap', `a = ${'['.repeat(200)}${']'.repeat(200)}\n`],
    ['an unclosed comment', '/* never closed'],
    ['not HCL', '}}}'],
    ['not JSON', '{'],
  ])('refuses %s, saying why', (_, text) => {
    const read = readBakeFile(text === '{' ? 'docker-bake.json' : 'docker-bake.hcl', text);
    expect(read.unreadable).toMatch(/\w/);
    expect(read.targets).toEqual([]);
  });

  it('stops at an inheritance cycle', () => {
    const read = readBakeFile(
      'docker-bake.hcl',
      'target "a" {\n inherits = ["b"]\n}\ntarget "b" {\n inherits = ["a"]\n context = "x"\n}\n',
    );
    expect(read.targets.map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('reads a 1 MB line, a 1 MB string and long lists within a generous deadline (linear readers)', () => {
    const mb = 1024 * 1024;
    const texts = [
      `target "a" {\n  context = "${'x'.repeat(mb)}"\n}\n`,
      `target "a" {\n  tags = [${'"t",'.repeat(mb / 4)}]\n}\n`,
      `# ${'#'.repeat(mb)}\ntarget "a" {}\n`,
      `target "a" {\n  args = { ${'A = "${B}" '.repeat(mb / 12)} }\n}\n`,
      `a = ${'f('.repeat(mb / 2)}\n`,
    ];
    for (const text of texts) {
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        readHcl(text);
        best = Math.min(best, (performance.now() - started) / 1000);
      }
      // A deadline, not a speed target: a backtracking reader took minutes on such lines.
      expect(best).toBeLessThan(15);
    }
  });
});

describe('GitLab CI jobs', () => {
  it('reads docker build and kaniko jobs, their variables, and the pushes that follow', () => {
    const read = readGitlabCi(
      '.gitlab-ci.yml',
      `variables:
  IMAGE: $CI_REGISTRY_IMAGE/api
stages: [build]
.docker: &docker
  image: docker:27
build-api:
  <<: *docker
  stage: build
  script:
    - docker build -f api/Dockerfile --target prod --build-arg VERSION=$CI_COMMIT_TAG -t $IMAGE:$CI_COMMIT_TAG -t $IMAGE:latest .
    - docker push $IMAGE:$CI_COMMIT_TAG
build-web:
  image: gcr.io/kaniko-project/executor:debug
  script:
    - /kaniko/executor --context "\${CI_PROJECT_DIR}/web" --dockerfile "\${CI_PROJECT_DIR}/web/Dockerfile" --destination "$CI_REGISTRY_IMAGE/web:$CI_COMMIT_TAG"
test:
  script:
    - docker build -t test-image .
`,
    );
    expect(read.unreadable).toBeUndefined();
    expect(
      read.builds.map((b) => ({
        at: b.at,
        context: b.context,
        file: b.file,
        target: b.target,
        push: b.push,
        images: b.images,
        args: b.buildArgs,
      })),
    ).toEqual([
      {
        at: '.gitlab-ci.yml job build-api',
        context: '.',
        file: 'api/Dockerfile',
        target: 'prod',
        push: true,
        images: ['$CI_REGISTRY_IMAGE/api'],
        args: { VERSION: '$CI_COMMIT_TAG' },
      },
      {
        at: '.gitlab-ci.yml job build-web',
        context: 'web',
        file: 'web/Dockerfile',
        target: undefined,
        push: true,
        images: ['$CI_REGISTRY_IMAGE/web'],
        args: {},
      },
      {
        at: '.gitlab-ci.yml job test',
        context: '.',
        file: undefined,
        target: undefined,
        push: false,
        images: ['test-image'],
        args: {},
      },
    ]);
  });

  it('says why it cannot read an alias bomb', () => {
    const lol = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      lol.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    expect(readGitlabCi('.gitlab-ci.yml', lol.join('\n')).unreadable).toMatch(/\w/);
  });
});

describe('goreleaser files', () => {
  it('reads its builds and its dockers, dockers_v2 and manifests', () => {
    const read = readGoreleaser(
      'cmd/acme-cli/.goreleaser.yml',
      `version: 2
builds:
  - id: acme
    main: ./main.go
    binary: acme
    ldflags: ["-X main.Version={{.Version}}"]
dockers:
  - image_templates: ["ghcr.io/acme/server:{{ .Version }}-amd64", "ghcr.io/acme/server:latest-amd64"]
    dockerfile: server.Dockerfile
    build_flag_templates: ["--platform=linux/amd64", "--build-arg=MODE=server", "--target=final"]
dockers_v2:
  - images: [ghcr.io/acme/agent]
    tags: ["{{ .Version }}", latest]
    platforms: [linux/amd64, linux/arm64]
    build_args: { MODE: agent }
docker_manifests:
  - name_template: ghcr.io/acme/server:{{ .Version }}
`,
    );
    expect(read.builds).toEqual([
      { id: 'acme', main: './main.go', binary: 'acme', ldflags: ['-X main.Version={{.Version}}'] },
    ]);
    expect(read.manifests).toEqual(['ghcr.io/acme/server:{{ .Version }}']);
    expect(
      read.images.map((i) => ({
        context: i.context,
        file: i.file,
        target: i.target,
        images: i.images,
        platforms: i.platforms,
        args: i.buildArgs,
        latest: i.pushesLatest,
        version: i.pushesVersion,
      })),
    ).toEqual([
      {
        context: 'cmd/acme-cli',
        file: 'cmd/acme-cli/server.Dockerfile',
        target: 'final',
        images: ['ghcr.io/acme/server'],
        platforms: ['linux/amd64'],
        args: { MODE: 'server' },
        latest: false,
        version: true,
      },
      {
        context: 'cmd/acme-cli',
        file: 'cmd/acme-cli/Dockerfile',
        target: undefined,
        images: ['ghcr.io/acme/agent'],
        platforms: ['linux/amd64', 'linux/arm64'],
        args: { MODE: 'agent' },
        latest: true,
        version: true,
      },
    ]);
  });
});

describe('docker commands in shell text', () => {
  it.each([
    ['docker build .', { context: '.', push: false }],
    [
      'docker build --file=x/Dockerfile --tag=a/b:1 --push ctx',
      { context: 'ctx', file: 'x/Dockerfile', tags: ['a/b:1'], push: true },
    ],
    ['echo hi; docker buildx build --load -t a:b sub', { context: 'sub', tags: ['a:b'], push: false }],
    ['VAR=1 time docker build -t "a b" "dir with space"', { context: 'dir with space', tags: ['a b'] }],
    [
      'executor --context=dir:///workspace --dockerfile Dockerfile --destination r/x:1 --no-push',
      { context: '/workspace', tags: ['r/x:1'], push: false },
    ],
  ])('%s', (line, expected) => {
    const [build] = dockerCommandsOf(line).builds;
    expect(build).toMatchObject(expected);
  });

  it('finds no build in other commands that mention docker', () => {
    expect(
      dockerCommandsOf('docker login -u x\ndocker run --rm img\necho "docker build later"').builds,
    ).toEqual([]);
  });
});
