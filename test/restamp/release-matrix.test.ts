import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OciImageConfig } from '../../src/oci-image/image-config.ts';
import { applyLayers, type LayerNode, readLayer } from '../../src/oci-image/read-layer.ts';
import { sha256Digest } from '../../src/registry/digest.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { type Descriptor, MEDIA_TYPES } from '../../src/registry/store.ts';
import { archiveFiles } from '../../src/reversion/archive-files.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { tarOf } from '../helpers/tar-of.ts';

// The release matrix of issue 37, on one real docker-registry, with fixtures/baked-service (a
// web whose build bakes its version into app.js, index.html and version.json, with a symlink
// among its files; a shell CLI whose build bakes it; an npm CLI):
//   flows:  a release built from its own tag (v1.0.0), rc then release from the rc (v1.1.0),
//           a backport through its own rc (v1.0.1, on a branch from v1.0.0, latest stays v1.1.0);
//   shapes: files only on the default base; a base with symlinks, hardlinks and a whiteout;
//           a two-platform index (as buildx pushes it) per image;
//   CLIs:   every shape twice, once with the shell CLI and once with the npm CLI (the web in
//           every cell), so each flow meets each shape with each artifact kind.
// Each cell: every file a user reads (the web's three files, the CLI archive's) says the
// release's version, and `release verify --registry --require-signature --expect <tag>` is in step
// against the release images' own servers, run from their layers.

const PASSPHRASE = 'matrix-only-passphrase';
type Shape = 'files' | 'links' | 'index';
type CliKind = 'shell' | 'npm';
const SHAPES: [Shape, CliKind][] = (['files', 'links', 'index'] as const).flatMap((shape) =>
  (['shell', 'npm'] as const).map((cli): [Shape, CliKind] => [shape, cli]),
);

let registry: RunningRegistry;
let store: RegistryStore;
const scratch = mkdtempSync(join(tmpdir(), 'sr-matrix-'));

beforeAll(async () => {
  registry = await startRegistry();
  store = new RegistryStore({ registry: registry.host, env: {} });
  await pushLinkedBase();
}, 120_000);
afterAll(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The default node base with a layer on top holding what real bases hold (Debian's alternatives,
 * busybox's applets): symlinks, a hardlink, a whiteout of a base file. Pushed as matrix-base:links.
 */
async function pushLinkedBase(): Promise<void> {
  const layout = `oci-layout:${scratch}/base/node:20`;
  const made = await runRelease(['base-image', '--ref', layout], { cwd: scratch, timeoutMs: 120_000 });
  expect(made.code, made.stderr).toBe(0);
  const from = openStore(`oci-layout:${scratch}/base`, { cwd: scratch, env: {} });
  const manifest = JSON.parse(Buffer.from((await from.getManifest('node', '20'))!.bytes).toString()) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  const config = JSON.parse(
    Buffer.from(await from.getBlob('node', manifest.config.digest)).toString(),
  ) as OciImageConfig;
  const tar = await tarOf([
    { name: 'etc/alternatives/', type: 'directory' },
    { name: 'etc/alternatives/js', type: 'symlink', linkname: '/usr/local/bin/node' },
    { name: 'usr/bin/nodejs', type: 'symlink', linkname: '../../etc/alternatives/js' },
    { name: 'usr/share/doc/base.txt', body: 'a base file\n' },
    { name: 'usr/share/doc/base-copy.txt', type: 'link', linkname: 'usr/share/doc/base.txt' },
    { name: 'etc/.wh.nsswitch.conf', body: '' },
  ]);
  const gz = gzipSync(tar);
  const repository = 'matrix-base';
  for (const layer of manifest.layers)
    await store.putBlob(repository, layer.digest, await from.getBlob('node', layer.digest));
  const layer = { mediaType: MEDIA_TYPES.ociLayerGzip, digest: sha256Digest(gz), size: gz.length };
  await store.putBlob(repository, layer.digest, gz);
  const linked = Buffer.from(
    JSON.stringify({
      ...config,
      rootfs: { type: 'layers', diff_ids: [...config.rootfs.diff_ids, sha256Digest(tar)] },
    }),
  );
  await store.putBlob(repository, sha256Digest(linked), linked);
  const body = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociManifest,
      config: { mediaType: MEDIA_TYPES.ociConfig, digest: sha256Digest(linked), size: linked.length },
      layers: [...manifest.layers, layer],
    }),
  );
  await store.putManifest(repository, 'links', body, MEDIA_TYPES.ociManifest);
}

/** A layer's entries, content kept under /srv/ only; by digest, so the shared base is read once. */
const layerCache = new Map<string, Promise<LayerNode[]>>();
function srvLayer(repository: string, digest: string): Promise<LayerNode[]> {
  let read = layerCache.get(digest);
  if (!read) {
    read = store
      .getBlob(repository, digest)
      .then((blob) => readLayer(blob, { what: repository, keep: (p) => p.startsWith('/srv/') }));
    layerCache.set(digest, read);
  }
  return read;
}

/** The project of one shape: its own image names in the shared registry, its CLI kind. */
function project(shape: Shape, cli: CliKind): GitRepo {
  const own = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../fixtures/baked-service/release.config.json'), 'utf8'),
  ) as { artifacts: Record<string, Record<string, unknown>> };
  const { api, web } = own.artifacts as Record<string, Record<string, unknown>>;
  const base = shape === 'links' ? { base: `${registry.host}/matrix-base:links` } : {};
  const archive = cli === 'shell' ? '/srv/baked-cli.tar.gz' : '/srv/baked-npm-cli.tgz';
  return fixtureProject('baked-service', {
    registry: registry.host,
    artifacts: {
      api: {
        ...api,
        ...base,
        image: `${shape}-${cli}-api`,
        cliArchive: archive,
        env: { ...(api!['env'] as object), CLI_ARCHIVE: archive },
      },
      worker: false,
      web: { ...web, ...base, image: `${shape}-${cli}-web` },
      cli:
        cli === 'shell'
          ? {
              package: 'baked-cli',
              build: { command: ['sh', 'scripts/build-cli.sh'], archive: 'dist/baked-cli.tar.gz' },
              installCommand: 'curl -fsSL {url} | tar -xz',
            }
          : {
              package: 'baked-npm-cli',
              build: { command: ['sh', 'scripts/build-npm-cli.sh'], archive: 'dist/baked-npm-cli.tgz' },
            },
    },
  });
}

function shapeCells(shape: Shape, cli: CliKind) {
  let repo: GitRepo;
  const images = { api: `${shape}-${cli}-api`, web: `${shape}-${cli}-web` };
  const release = (args: string[]): Promise<RunResult> =>
    runRelease([...args, '--json'], {
      cwd: repo.dir,
      env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE },
      timeoutMs: 240_000,
    });
  const ok = async (args: string[]) => {
    const result = await release(args);
    expect(result.code, `${args.join(' ')}\n${result.stderr}\n${result.stdout.slice(-2000)}`).toBe(0);
    return jsonOf<Record<string, unknown>>(result);
  };

  let built: Record<string, { reference: string; digest: string }> = {};
  const buildTag = () => built['web']!.reference.split(':').at(-1)!;
  /** stamp and build (pushed); the index shape then turns each build into a two-platform index. */
  const build = async () => {
    await ok(['stamp']);
    built = (
      (await ok(['build', '--engine', 'oci', '--push'])) as {
        images: Record<string, { reference: string; digest: string }>;
      }
    ).images;
    if (shape === 'index') await toTwoPlatforms(repo, built);
  };

  const setup = async () => {
    repo = project(shape, cli);
    repo.commit('baked');
    await ok(['keygen', '--out', 'keys']);
    repo.commit('keys');
  };

  const fromTag = async () => {
    repo.tag('v1.0.0');
    await build();
    // Signing is configured: the build's own digests are signed before they become the release.
    for (const repository of Object.values(images))
      await ok(['sign', `${repository}@${(await store.resolve(repository, buildTag()))!.digest}`]);
    await ok(['promote', '--channel', 'release']);
    // Nothing to re-version: the release is the build itself, byte for byte.
    for (const repository of Object.values(images))
      expect((await store.resolve(repository, 'v1.0.0'))?.digest).toBe(
        (await store.resolve(repository, buildTag()))?.digest,
      );
    await expectUserFiles('v1.0.0', undefined);
    await expectVerified('v1.0.0');
  };

  const fromRc = async () => {
    repo.write('web/app.js', `${readFileSync(join(repo.dir, 'web/app.js'), 'utf8')}// 1.1\n`);
    repo.commit('1.1');
    repo.tag('v1.1.0-rc.1');
    await build();
    await ok(['promote', '--channel', 'rc']);
    repo.tag('v1.1.0');
    const out = await ok(['promote', '--channel', 'release', '--from', 'v1.1.0-rc.1', '--version', 'v1.1.0']);
    // One platform and the rc's tag here: rebuilt; an index of two: its version strings rewritten.
    expect(out['imageRebuilds']).toMatchObject({
      web: { strategy: shape === 'index' ? 'rewrite' : 'rebuild', equal: true },
    });
    await expectUserFiles('v1.1.0', 'v1.1.0-rc.1');
    await expectVerified('v1.1.0');
  };

  const backport = async () => {
    repo.git('checkout', '-q', '-b', 'release-1.0', 'v1.0.0');
    repo.write('web/app.js', `${readFileSync(join(repo.dir, 'web/app.js'), 'utf8')}// fix\n`);
    repo.commit('backport a fix');
    repo.tag('v1.0.1-rc.1');
    await build();
    await ok(['promote', '--channel', 'rc']);
    repo.tag('v1.0.1');
    await ok(['promote', '--channel', 'release', '--from', 'v1.0.1-rc.1', '--version', 'v1.0.1']);
    await expectUserFiles('v1.0.1', 'v1.0.1-rc.1');
    await expectVerified('v1.0.1');
    expect((await store.resolve(images.web, 'latest'))?.digest).toBe(
      (await store.resolve(images.web, 'v1.1.0'))?.digest,
    );
  };

  /** Every platform of the release: the web's three files and the CLI's say `tag`, never the rc. */
  async function expectUserFiles(tag: string, rc: string | undefined) {
    for (const [artifact, files] of await platformTrees(images.web, tag)) {
      const where = `${images.web}:${tag} ${artifact}`;
      const text = (p: string) => files.get(p)!.toString('utf8');
      expect(text('/srv/web/app.js'), where).toContain(`'${tag}'`);
      expect(text('/srv/web/index.html'), where).toContain(
        `<meta name="service-client-version" content="${tag}" />`,
      );
      expect(text('/srv/web/index.html'), where).toContain(`<title>baked ${tag}</title>`);
      expect(JSON.parse(text('/srv/web/version.json')), where).toEqual({ version: tag });
      expect(files.get('/srv/web/main.js')!.toString(), where).toBe('\0symlink -> app.js\n');
      if (rc)
        for (const p of ['app.js', 'index.html', 'version.json'])
          expect(text(`/srv/web/${p}`)).not.toContain(rc);
    }
    for (const [platform, files] of await platformTrees(images.api, tag)) {
      const path = cli === 'shell' ? '/srv/baked-cli.tar.gz' : '/srv/baked-npm-cli.tgz';
      const archive = await archiveFiles(files.get(path)!, `${platform} CLI`);
      if (cli === 'npm') {
        expect(JSON.parse(archive.get('package/package.json')!.toString()).version).toBe(tag.slice(1));
        continue;
      }
      const name = `baked-cli-${tag.slice(1)}`;
      expect([...archive.keys()].sort(), platform).toEqual([`${name}/bin/baked`, `${name}/lib/baked-lib.sh`]);
      const dir = join(scratch, `${shape}-${cli}-${tag}-${platform.replace('/', '-')}`);
      for (const [p, bytes] of archive) {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), bytes);
      }
      chmodSync(join(dir, name, 'bin/baked'), 0o755);
      expect(execFileSync(join(dir, name, 'bin/baked'), ['--version'], { encoding: 'utf8' })).toBe(
        `baked ${tag}\n`,
      );
    }
  }

  /** verify against the release's own api and web servers, run from the release images' layers. */
  async function expectVerified(tag: string) {
    const running: StartedProcess[] = [];
    try {
      for (const name of ['api', 'web'] as const) {
        const [[, files]] = [...(await platformTrees(images[name], tag))] as [[string, Map<string, Buffer>]];
        const root = join(scratch, `${shape}-${cli}-${tag}-${name}-root`);
        for (const [p, bytes] of files) {
          mkdirSync(dirname(join(root, p)), { recursive: true });
          if (bytes[0] === 0 && bytes.toString().startsWith('\0symlink -> '))
            symlinkSync(bytes.toString().slice('\0symlink -> '.length, -1), join(root, p));
          else writeFileSync(join(root, p), bytes);
        }
        const env = Object.fromEntries(
          ((await platformConfig(images[name], tag)).config?.Env ?? []).map((l) => l.split(/=(.*)/s, 2)),
        );
        running.push(
          await startProcess(join(root, `srv/${name}/server.mjs`), {
            env: { ...env, HOST: '127.0.0.1', PORT: '0', CLI_ARCHIVE: join(root, env['CLI_ARCHIVE'] ?? '') },
            readyPattern: /listening on (http:\/\/\S+)/,
          }),
        );
      }
      const [api, web] = running as [StartedProcess, StartedProcess];
      const verified = await release([
        'verify',
        ...[
          '--url',
          api.url,
          '--web-url',
          web.url,
          '--registry',
          '--require-signature',
          '--expect',
          tag,
          '--no-cli',
        ],
      ]);
      const findings = (jsonOf<{ findings?: { severity: string }[] }>(verified).findings ?? []).filter(
        (f) => f.severity !== 'notice',
      );
      expect(verified.code, `${JSON.stringify(findings, null, 1)}\n${verified.stderr}`).toBe(0);
    } finally {
      await Promise.all(running.map((p) => p.stop()));
    }
  }

  /** Per platform of `repository:tag` (one, or each child of an index), its files under /srv. */
  async function platformTrees(repository: string, tag: string): Promise<Map<string, Map<string, Buffer>>> {
    const out = new Map<string, Map<string, Buffer>>();
    for (const [platform, manifest] of await platformManifests(repository, tag)) {
      const layers = [];
      for (const layer of manifest.layers) layers.push(await srvLayer(repository, layer.digest));
      const files = new Map<string, Buffer>();
      for (const [p, node] of applyLayers(layers))
        if (p.startsWith('/srv/'))
          files.set(
            p,
            node.type === 'file' ? node.content : Buffer.from(`\0${node.type} -> ${node.target}\n`),
          );
      out.set(platform, files);
    }
    return out;
  }

  async function platformConfig(repository: string, tag: string): Promise<OciImageConfig> {
    const manifest = [...(await platformManifests(repository, tag)).values()][0]!;
    return JSON.parse(Buffer.from(await store.getBlob(repository, manifest.config.digest)).toString());
  }

  async function platformManifests(repository: string, tag: string) {
    type Body = { manifests?: Descriptor[]; config: Descriptor; layers: Descriptor[] };
    const top = JSON.parse(Buffer.from((await store.getManifest(repository, tag))!.bytes).toString()) as Body;
    if (!top.manifests) return new Map([['linux/amd64', top]]);
    const out = new Map<string, Body>();
    for (const child of top.manifests) {
      if (child.platform?.os === 'unknown') continue;
      const body = JSON.parse(
        Buffer.from((await store.getManifest(repository, child.digest))!.bytes).toString(),
      );
      out.set(`${child.platform!.os}/${child.platform!.architecture}`, body);
    }
    return out;
  }
  return { shape, cli, setup, flows: [fromTag, fromRc, backport], remove: () => repo?.remove() };
}

// Cells that share setup: one repository per shape runs its three flows in order (each flow
// builds on the tags the one before left); the shapes run side by side, one flow at a time.
const cells = SHAPES.map(([shape, cli]) => shapeCells(shape, cli));
const FLOWS = [
  'a release built from its own tag: promoted as it is, baked files included, signed, in step',
  'rc then release from the rc: the baked files re-versioned, proven, signed, in step',
  'a backport through its own rc: released from it, latest stays on the newer release',
];

describe('the release matrix', () => {
  beforeAll(() => Promise.all(cells.map((c) => c.setup())), 120_000);
  afterAll(() => {
    for (const c of cells) c.remove();
  });
  FLOWS.forEach((flow, i) => {
    describe(flow, () => {
      it.concurrent.each(cells.map((c) => [`${c.shape} shape, ${c.cli} CLI`, c] as const))(
        '%s',
        async (_, cell) => {
          await cell.flows[i]!();
        },
        240_000,
      );
    });
  });
});

/**
 * What a buildx build for two platforms pushes: an OCI index over the amd64 image we built and an
 * arm64 twin (its config says arm64; web and api files are the same bytes on both). Written over
 * the build tag and into the build record, where promote reads the build's digests.
 */
async function toTwoPlatforms(
  repo: GitRepo,
  built: Record<string, { reference: string; digest: string }>,
): Promise<void> {
  const recordPath = join(repo.dir, 'dist', 'release.json');
  const record = JSON.parse(readFileSync(recordPath, 'utf8')) as {
    artifacts: Record<string, { digest?: string }>;
  };
  for (const [artifact, image] of Object.entries(built)) {
    const slash = image.reference.indexOf('/');
    const [repository, tag] = image.reference.slice(slash + 1).split(':') as [string, string];
    const amd = (await store.getManifest(repository, image.digest))!;
    const body = JSON.parse(Buffer.from(amd.bytes).toString()) as {
      config: Descriptor;
      layers: Descriptor[];
    };
    const config = JSON.parse(Buffer.from(await store.getBlob(repository, body.config.digest)).toString());
    const armConfig = Buffer.from(JSON.stringify({ ...config, architecture: 'arm64' }));
    await store.putBlob(repository, sha256Digest(armConfig), armConfig);
    const arm = Buffer.from(
      JSON.stringify({
        ...body,
        config: { ...body.config, digest: sha256Digest(armConfig), size: armConfig.length },
      }),
    );
    await store.putManifest(repository, sha256Digest(arm), arm, MEDIA_TYPES.ociManifest);
    const child = (digest: string, size: number, architecture: string) => ({
      mediaType: MEDIA_TYPES.ociManifest,
      digest,
      size,
      platform: { os: 'linux', architecture },
    });
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.ociIndex,
        manifests: [
          child(image.digest, amd.bytes.length, 'amd64'),
          child(sha256Digest(arm), arm.length, 'arm64'),
        ],
      }),
    );
    await store.putManifest(repository, tag, index, MEDIA_TYPES.ociIndex);
    record.artifacts[artifact]!.digest = sha256Digest(index);
  }
  writeFileSync(recordPath, `${JSON.stringify(record, null, 2)}\n`);
}
