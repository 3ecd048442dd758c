import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyLayers, readLayer } from '../../src/oci-image/read-layer.ts';
import { VERSION_LABEL } from '../../src/oci-image/version-layer.ts';
import { platformChildren } from '../../src/registry/platform-children.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, makeIndex, pushIndex } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { ARTIFACTS, type Artifact, REPOS, readRecord, stampedProject } from '../promote/project.ts';
import { type InProcessDeployment, startInProcessDeployment } from '../verify/in-process-deployments.ts';

// `release adopt`: images a project's own CI built and pushed become the build of the stamped
// version. Real images: built by a private dockerd with the BuildKit of Debian's docker CLI
// (`DOCKER_BUILDKIT=1 /usr/bin/docker build --network host`), pushed by `docker push` to a real
// docker-registry, and described by the metadata file buildx writes (`--metadata-file`, the shape
// of docker/buildx's build and bake commands: `containerimage.digest`, `containerimage.descriptor`,
// `image.name`, `buildx.build.ref`; bake one such object per target beside
// `buildx.build.warnings`). Three ways in: one metadata file per image, one bake file, and
// `<artifact>=<ref>@<digest>` pairs (one of them a two-platform index with buildx's attestation
// manifest). Each then goes dev -> rc (signed) -> release from the rc, and `release verify
// --registry --require-signature` is in step against the released versions.

const RC = 'v2.0.0-rc.1';
const RELEASE = 'v2.0.0';
const PASSPHRASE = 'adopt-passphrase';
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };
const DOCKER = '/usr/bin/docker';

let dockerd: Dockerd;
let registry: RunningRegistry;
let context: string;
const built = {} as Record<Artifact, { digest: string; size: number; config: string; mediaType: string }>;
const cleanups: (() => Promise<void> | void)[] = [];

function docker(args: string[], extra: Record<string, string> = {}): string {
  return execFileSync(DOCKER, args, {
    cwd: context,
    encoding: 'utf8',
    env: { ...process.env, DOCKER_HOST: dockerd.host, DOCKER_BUILDKIT: '1', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
  });
}

/** Build one role's image with BuildKit and push it to `<registry>/<ns>/<repo>`, as a CI job does. */
function buildAndPush(ns: string, artifact: Artifact, version: string) {
  const name = `${registry.host}/${ns}/${REPOS[artifact]}:ci`;
  docker([
    'build',
    '--network',
    'host',
    '--build-arg',
    `SERVICE_VERSION=${version}`,
    '--build-arg',
    `ROLE=${artifact}`,
    '-t',
    name,
    '.',
  ]);
  const pushed = docker(['push', name]);
  const match = /digest: (sha256:[0-9a-f]{64}) size: (\d+)/.exec(pushed);
  if (!match) throw new Error(`docker push printed no digest:\n${pushed}`);
  const config = docker(['image', 'inspect', '--format', '{{.Id}}', name]).trim();
  return {
    name,
    digest: match[1]!,
    size: Number(match[2]),
    config,
    mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
  };
}

/** What `docker buildx build --push --metadata-file` writes for one image (docker/buildx's shape). */
function buildxMetadata(image: {
  name: string;
  digest: string;
  size: number;
  config: string;
  mediaType: string;
}) {
  return {
    'buildx.build.provenance': { buildType: 'https://mobyproject.org/buildkit@v1' },
    'buildx.build.ref': `builder/builder0/${image.digest.slice(7, 32)}`,
    'containerimage.config.digest': image.config,
    'containerimage.descriptor': {
      annotations: {
        'config.digest': image.config,
        'org.opencontainers.image.created': '2026-11-27T12:00:00Z',
      },
      digest: image.digest,
      mediaType: image.mediaType,
      size: image.size,
    },
    'containerimage.digest': image.digest,
    'image.name': image.name,
  };
}

beforeAll(async () => {
  [dockerd, registry] = await Promise.all([startDockerd(), startRegistry()]);
  cleanups.push(
    () => dockerd.stop(),
    () => registry.stop(),
  );
  context = mkdtempSync(join(tmpdir(), 'sr-adopt-'));
  cleanups.push(() => rmSync(context, { recursive: true, force: true }));
  // A CI's Dockerfile: the version comes in as a build arg, lands in the env, a label and a file.
  writeFileSync(
    join(context, 'Dockerfile'),
    [
      'FROM scratch',
      'ARG ROLE',
      'ARG SERVICE_VERSION',
      'COPY $ROLE/ /app/',
      'COPY --chmod=755 run.sh /app/run.sh',
      'ENV SERVICE_VERSION=$SERVICE_VERSION',
      'LABEL org.opencontainers.image.version=$SERVICE_VERSION',
      '',
    ].join('\n'),
  );
  writeFileSync(join(context, 'run.sh'), '#!/bin/sh\n');
  for (const a of ARTIFACTS) {
    mkdirSync(join(context, a));
    writeFileSync(join(context, a, 'role.txt'), `${a}\n`);
    writeFileSync(join(context, a, 'version.json'), `${JSON.stringify({ version: RC })}\n`);
  }
}, 240_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A stamped project whose registry is `<registry>/<ns>`, with the release key. */
async function project(ns: string): Promise<GitRepo> {
  const repo = await stampedProject(RC, {
    registry: `${registry.host}/${ns}`,
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  cleanups.push(() => repo.remove());
  await writeKeyPair(repo.dir, env);
  return repo;
}

const run = (repo: GitRepo, args: string[]) => runRelease(args, { cwd: repo.dir, env, timeoutMs: 120_000 });

/** dev -> rc (signed) -> release from the rc, then verify --registry --require-signature in step. */
async function promoteAndVerify(repo: GitRepo, ns: string) {
  const store = new RegistryStore({ registry: `${registry.host}/${ns}`, env: {} });
  for (const args of [
    ['promote', '--channel', 'dev'],
    ['promote', '--channel', 'rc'],
  ]) {
    const result = await run(repo, args);
    expect(result.code, result.stdout + result.stderr).toBe(0);
  }
  const record = readRecord(repo);
  for (const a of ARTIFACTS)
    expect((await store.resolve(REPOS[a], RC))?.digest).toBe(record.artifacts[a].digest);
  repo.tag(RELEASE);
  const released = await run(repo, ['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
  expect(released.code, released.stdout + released.stderr).toBe(0);
  // Every file that carried the rc's version says the release's (a new top layer over the rc's).
  for (const a of ARTIFACTS) {
    const manifest = (await store.getManifest(REPOS[a], RELEASE))!;
    const children = platformChildren(manifest.bytes);
    const digest = children ? children[0]!.digest : manifest.descriptor.digest;
    const image = JSON.parse(Buffer.from((await store.getManifest(REPOS[a], digest))!.bytes).toString());
    const config = JSON.parse(Buffer.from(await store.getBlob(REPOS[a], image.config.digest)).toString());
    expect(config.config.Labels[VERSION_LABEL]).toBe(RELEASE);
    if (children) continue; // the helper's index images carry no files of ours
    expect(config.config.Env).toContain(`SERVICE_VERSION=${RELEASE}`);
    const layers = [];
    for (const layer of image.layers)
      layers.push(await readLayer(await store.getBlob(REPOS[a], layer.digest), { what: layer.digest }));
    const tree = applyLayers(layers);
    const version = tree.get('/app/version.json');
    expect(version?.type === 'file' && version.content.toString()).toContain(RELEASE);
    const script = tree.get('/app/run.sh');
    expect(script?.type === 'file' && script.mode & 0o777).toBe(0o755);
  }
  const webRoot = mkdtempSync(join(tmpdir(), 'sr-adopt-web-'));
  cleanups.push(() => rmSync(webRoot, { recursive: true, force: true }));
  writeFileSync(join(webRoot, 'version.json'), JSON.stringify({ version: RELEASE }));
  const deployment: InProcessDeployment = await startInProcessDeployment({
    name: ns,
    apiVersion: RELEASE,
    workerVersion: RELEASE,
    webRoot,
  });
  cleanups.push(() => deployment.close());
  const verified = await run(repo, [
    'verify',
    ...['--url', deployment.url, '--web-url', deployment.webUrl, '--worker-url', deployment.workerUrl],
    ...['--expect', RELEASE, '--registry', '--require-signature', '--no-cli', '--json'],
  ]);
  expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  expect(jsonOf<{ inStep: boolean }>(verified).inStep).toBe(true);
  // Attestations as far as they apply: each release image's provenance (carried from the adopted
  // rc's) and the release set verify; the SBOM is missing, which --require-attestations calls drift.
  const attested = await run(repo, [
    'verify',
    ...['--url', deployment.url, '--web-url', deployment.webUrl, '--worker-url', deployment.workerUrl],
    ...['--expect', RELEASE, '--registry', '--require-attestations', '--no-cli', '--json'],
  ]);
  expect(attested.code, attested.stdout + attested.stderr).toBe(1);
  const report = jsonOf<{
    findings: { code: string; message: string }[];
    evidence: {
      artifact: string;
      sbom: { status: string };
      provenance: { status: string };
      releaseSet?: unknown;
    }[];
  }>(attested);
  expect(report.evidence.map((e) => [e.artifact, e.provenance.status, e.sbom.status])).toEqual(
    ARTIFACTS.map((a) => [a, 'valid', 'missing']),
  );
  expect(report.evidence.every((e) => e.releaseSet)).toBe(true);
  // (These projects ship no CLI archive: the set naming none is its own finding, not adoption's.)
  const findings = report.findings.filter((f) => f.code !== 'RELEASE_SET_NO_ARCHIVE');
  expect([...new Set(findings.map((f) => f.code))]).toEqual(['EVIDENCE_MISSING']);
  expect(findings.every((f) => f.message.includes('SBOM'))).toBe(true);
}

describe('release adopt', { timeout: 400_000 }, () => {
  it('adopts one buildx metadata file per image, then dev -> rc -> release -> verify', async () => {
    const ns = 'files';
    const repo = await project(ns);
    const files: string[] = [];
    for (const a of ARTIFACTS) {
      const image = buildAndPush(ns, a, RC);
      built[a] = image;
      const file = join(repo.dir, `${a}-metadata.json`);
      writeFileSync(file, JSON.stringify(buildxMetadata(image), null, 2));
      files.push(`${a}-metadata.json`);
    }
    const adopted = await run(repo, ['adopt', ...files, '--json']);
    expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
    const out = jsonOf<{
      images: Record<string, { digest: string; matchedBy: string }>;
      evidence: { signed: boolean };
    }>(adopted);
    for (const a of ARTIFACTS) {
      expect(out.images[a]).toMatchObject({ digest: built[a].digest, matchedBy: 'image name' });
      const entry = readRecord(repo).artifacts[a];
      expect(entry.digest).toBe(built[a].digest);
      expect(entry.build).toBeUndefined();
      expect(entry.adopted).toMatchObject({
        from: {
          kind: 'buildx-metadata',
          file: `${a}-metadata.json`,
          names: [`${registry.host}/${ns}/${REPOS[a]}:ci`],
        },
        mediaType: built[a].mediaType,
      });
      expect(entry.adopted.from.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(out.evidence.signed).toBe(true);
    // The provenance claims no build of ours: an adopted build type, the metadata by its hash.
    const statement = JSON.parse(
      readFileSync(join(repo.dir, 'dist', 'evidence', 'api.provenance.intoto.json'), 'utf8'),
    );
    expect(statement.predicate.buildDefinition.buildType).toContain('/adopted/');
    expect(statement.predicate.buildDefinition.resolvedDependencies).toEqual([]);
    expect(statement.subject[0].digest.sha256).toBe(built.api.digest.slice(7));
    expect(existsSync(join(repo.dir, 'dist', 'evidence', 'api.sbom.cdx.json'))).toBe(false);
    await promoteAndVerify(repo, ns);
  });

  it('adopts a bake metadata file whose targets are named unlike the artifacts', async () => {
    const ns = 'bake';
    const repo = await project(ns);
    const bake: Record<string, unknown> = { 'buildx.build.warnings': [] };
    const targets: Record<Artifact, string> = { api: 'backend', worker: 'jobs', web: 'frontend' };
    for (const a of ['api', 'worker'] as const) bake[targets[a]] = buildxMetadata(buildAndPush(ns, a, RC));
    // The web target built for two platforms, as buildx records such a build: an index, no plain
    // buildx.build.provenance but one per platform, pushed under our registry and a mirror.
    const store = new RegistryStore({ registry: `${registry.host}/${ns}`, env: {} });
    const labels = { [VERSION_LABEL]: RC };
    const index = makeIndex([
      makeImage({ architecture: 'amd64', labels }),
      makeImage({ architecture: 'arm64', labels }),
    ]);
    const webDigest = await pushIndex(store, REPOS.web, index);
    bake[targets.web] = {
      'buildx.build.provenance/linux/amd64': { buildType: 'https://mobyproject.org/buildkit@v1' },
      'buildx.build.provenance/linux/arm64': { buildType: 'https://mobyproject.org/buildkit@v1' },
      'buildx.build.ref': 'builder/builder0/web',
      'containerimage.descriptor': {
        mediaType: 'application/vnd.oci.image.index.v1+json',
        digest: webDigest,
        size: index.manifest.length,
      },
      'containerimage.digest': webDigest,
      'image.name': `${registry.host}/${ns}/${REPOS.web}:ci,mirror.example.com/acme/web:ci`,
    };
    bake['lint'] = { 'buildx.build.ref': 'builder/builder0/lint' }; // a target that pushes nothing
    writeFileSync(join(repo.dir, 'bake-metadata.json'), JSON.stringify(bake));
    const adopted = await run(repo, ['adopt', 'bake-metadata.json', '--json']);
    expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
    for (const a of ARTIFACTS)
      expect(readRecord(repo).artifacts[a].adopted.from).toMatchObject({
        kind: 'bake-metadata',
        target: targets[a],
        buildxProvenance: true,
      });
    expect(readRecord(repo).artifacts.web).toMatchObject({
      digest: webDigest,
      adopted: { platforms: ['linux/amd64', 'linux/arm64'] },
    });
    await promoteAndVerify(repo, ns);
  });

  it('adopts <artifact>=<ref>@<digest> pairs, one a two-platform index with an attestation', async () => {
    const ns = 'pairs';
    const repo = await project(ns);
    const store = new RegistryStore({ registry: `${registry.host}/${ns}`, env: {} });
    const pairs = (['api', 'worker'] as const).map((a) => {
      const image = buildAndPush(ns, a, RC);
      return `${a}=${image.name.replace(/:ci$/, '')}@${image.digest}`;
    });
    const labels = { [VERSION_LABEL]: RC };
    // As buildx pushes it: two platform images and its provenance attestation (unknown/unknown).
    const attestation = makeImage();
    attestation.descriptor.platform = { architecture: 'unknown', os: 'unknown' };
    attestation.descriptor.annotations = { 'vnd.docker.reference.type': 'attestation-manifest' };
    const index = makeIndex([
      makeImage({ architecture: 'amd64', labels }),
      makeImage({ architecture: 'arm64', labels }),
      attestation,
    ]);
    const web = await pushIndex(store, REPOS.web, index);
    const adopted = await run(repo, [
      'adopt',
      ...pairs,
      `web=${registry.host}/${ns}/${REPOS.web}@${web}`,
      '--json',
    ]);
    expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
    const out = jsonOf<{ images: Record<string, { platforms: string[]; matchedBy: string }> }>(adopted);
    expect(out.images['web']).toMatchObject({
      platforms: ['linux/amd64', 'linux/arm64'],
      matchedBy: 'artifact',
    });
    expect(readRecord(repo).artifacts.web.adopted).toMatchObject({
      from: { kind: 'reference' },
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    await promoteAndVerify(repo, ns);
  });
});

describe('release adopt refuses', { timeout: 200_000 }, () => {
  let repo: GitRepo;
  const ns = 'refusals';
  let image: ReturnType<typeof buildAndPush>;

  beforeAll(async () => {
    repo = await project(ns);
    image = buildAndPush(ns, 'api', RC);
  }, 200_000);

  const recordText = () => readFileSync(join(repo.dir, 'dist', 'release.json'), 'utf8');
  const refused = async (args: string[], code: number, pattern: RegExp) => {
    const before = recordText();
    const store = new RegistryStore({ registry: `${registry.host}/${ns}`, env: {} });
    const tags = await store.listTags(REPOS.api);
    const result = await run(repo, ['adopt', ...args]);
    expect(result.code, result.stdout + result.stderr).toBe(code);
    expect(result.stderr).toMatch(pattern);
    expect(recordText()).toBe(before);
    expect(existsSync(join(repo.dir, 'dist', 'evidence'))).toBe(false);
    expect(await store.listTags(REPOS.api)).toEqual(tags);
  };

  it('--dry-run checks the image and writes nothing (exit 0)', async () => {
    const before = recordText();
    const store = new RegistryStore({ registry: `${registry.host}/${ns}`, env: {} });
    const tags = await store.listTags(REPOS.api);
    const result = await run(repo, [
      'adopt',
      `api=${registry.host}/${ns}/${REPOS.api}@${image.digest}`,
      '--dry-run',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`would adopt as ${RC}`);
    expect(result.stdout).toContain(`api: ${REPOS.api}@${image.digest}  image`);
    expect(recordText()).toBe(before);
    expect(await store.listTags(REPOS.api)).toEqual(tags);
    expect(existsSync(join(repo.dir, 'dist', 'evidence'))).toBe(false);
  });

  it('a digest missing in the registry: exit 1, nothing written', async () => {
    const missing = `sha256:${'e'.repeat(64)}`;
    writeFileSync(join(repo.dir, 'm.json'), JSON.stringify(buildxMetadata({ ...image, digest: missing })));
    await refused(['m.json'], 1, /ADOPT_DIGEST_MISSING|is not in/);
    await refused([`api=${registry.host}/${ns}/${REPOS.api}@${missing}`], 1, /is not in/);
  });

  it('a name matching no artifact, or a registry other than the config: exit 2', async () => {
    writeFileSync(
      join(repo.dir, 'other.json'),
      JSON.stringify(buildxMetadata({ ...image, name: `${registry.host}/${ns}/someone-else:ci` })),
    );
    await refused(['other.json'], 2, /matches no artifact of the config/);
    await refused(
      [`nope=${registry.host}/${ns}/${REPOS.api}@${image.digest}`],
      2,
      /no image artifact "nope"/,
    );
    await refused(
      [`worker=${registry.host}/${ns}/${REPOS.api}@${image.digest}`],
      2,
      /given as worker, but pushed to/,
    );
  });

  it('a version other than the record: exit 1', async () => {
    const other = buildAndPush('refusals-v', 'api', 'v1.9.0');
    // Same repository as the config's, so it is the version (not the name) that refuses.
    docker(['tag', other.name, `${registry.host}/${ns}/${REPOS.api}:old`]);
    const pushed = docker(['push', `${registry.host}/${ns}/${REPOS.api}:old`]);
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(pushed)![1]!;
    const result = await run(repo, ['adopt', `api=${registry.host}/${ns}/${REPOS.api}@${digest}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/says v1\.9\.0, not v2\.0\.0-rc\.1/);
  });

  const malformed: [string, (image: ReturnType<typeof buildAndPush>) => string][] = [
    ['not JSON', () => '{"containerimage.digest": '],
    ['an array', () => '[]'],
    ['a digest that is not one', () => JSON.stringify({ 'containerimage.digest': 'sha256:../../etc' })],
    [
      'a descriptor naming another digest',
      (image) =>
        JSON.stringify({
          ...buildxMetadata(image),
          'containerimage.descriptor': { digest: `sha256:${'1'.repeat(64)}` },
        }),
    ],
    [
      'an artifact manifest',
      (image) =>
        JSON.stringify({
          ...buildxMetadata(image),
          'containerimage.descriptor': {
            digest: image.digest,
            mediaType: 'application/vnd.cncf.helm.config.v1+json',
          },
        }),
    ],
    [
      'an image name with a newline',
      (image) => JSON.stringify({ ...buildxMetadata(image), 'image.name': 'a\nb' }),
    ],
    ['a bake file with no pushed target', () => JSON.stringify({ 'buildx.build.warnings': [], lint: {} })],
  ];
  it.each(malformed)('a malformed metadata file (%s): exit 2, nothing written', async (_what, text) => {
    writeFileSync(join(repo.dir, 'bad.json'), text(image));
    await refused(['bad.json'], 2, /bad\.json: /);
  });

  it('a metadata file larger than the bound, read no further: exit 2', async () => {
    writeFileSync(join(repo.dir, 'huge.json'), `{"x":"${'a'.repeat(9 * 1024 * 1024)}"}`);
    await refused(['huge.json'], 2, /larger than \d+ bytes/);
    await refused(['no-such-file.json'], 2, /neither a readable file/);
  });
});
