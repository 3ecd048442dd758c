import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyLayers, readLayer, type TreeNode } from '../../src/oci-image/read-layer.ts';
import { VERSION_LABEL } from '../../src/oci-image/version-layer.ts';
import { sha256Digest } from '../../src/registry/digest.ts';
import { platformChildren } from '../../src/registry/platform-children.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { type ImageStore, MEDIA_TYPES } from '../../src/registry/store.ts';
import { pushRestamped, restampImage } from '../../src/restamp/restamp-image.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { manifestProvenance } from '../../src/verify/probes/image-provenance.ts';
import { bundleOf, referrersOf, verifyDsse } from '../evidence/dsse.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, makeIndex, pushIndex } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { tarOf } from '../helpers/tar-of.ts';
import { type Artifact, REPOS, recordDigests, stampedProject } from '../promote/project.ts';
import { type InProcessDeployment, startInProcessDeployment } from '../verify/in-process-deployments.ts';

// Issue 37, part 3, for images we did not build: a web built by another team's CI and pushed as
// buildx pushes a two-platform image (a Docker manifest list over Docker schema 2 images, gzip
// layers, a history line per layer), whose web files bake the rc's version in a LOWER layer (a
// later layer adds a file and whites out a base file), on a base with a symlink and a hardlink.
// No build command here, no version layer of ours. Signed rc -> release from the rc: each
// platform child gets one new top layer holding the rewritten files (every rc layer kept, the
// config's diff_ids and history extended), the proof goes into the release signature's
// statement, every file a user reads says the release, and `release verify --registry
// --require-signature` is in step (re-stamping the rc reproduces the release byte for byte).

const RC = 'v2.0.0-rc.1';
const RELEASE = 'v2.0.0';
const PASSPHRASE = 'foreign-image-passphrase';
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };
const ARCHES = ['amd64', 'arm64'];
const WEB_FILES = ['/srv/web/app.js', '/srv/web/index.html', '/srv/web/version.json'];
const DOCKER_LAYER = 'application/vnd.docker.image.rootfs.diff.tar.gzip';

let registry: RunningRegistry;
let store: RegistryStore;
let repo: GitRepo;
let work: string;
let deployment: InProcessDeployment | undefined;
const rc = {} as Record<Artifact, string>;

const release = (args: string[]) => runRelease(args, { cwd: repo.dir, env, timeoutMs: 90_000 });

beforeAll(async () => {
  registry = await startRegistry();
  store = new RegistryStore({ registry: registry.host, env: {} });
  repo = await stampedProject(RC, {
    registry: registry.host,
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  await writeKeyPair(repo.dir, env);
  for (const a of ['api', 'worker'] as const) {
    const labels = { [VERSION_LABEL]: RC };
    rc[a] = await pushIndex(
      store,
      REPOS[a],
      makeIndex([makeImage({ architecture: 'amd64', labels }), makeImage({ architecture: 'arm64', labels })]),
    );
  }
  rc.web = await pushBuildxWeb(store, REPOS.web);
  recordDigests(repo, rc, RC);
  work = mkdtempSync(join(tmpdir(), 'sr-foreign-'));
}, 60_000);

afterAll(async () => {
  await deployment?.close();
  repo?.remove();
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a web built elsewhere (buildx, two platforms) from signed rc to release', {
  timeout: 180_000,
}, () => {
  it('the release adds one top layer per platform with the rewritten files; every rc layer kept', async () => {
    const signed = await release(['promote', '--channel', 'rc']);
    expect(signed.code, signed.stderr).toBe(0);
    repo.tag(RELEASE);
    const run = await release(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain('rewritten in a new top layer');
    expect(run.stdout + run.stderr).toContain('(config and a new top layer)');
    // The proof (what the release signature's statement records): each file the rc's modulo version strings.
    expect(run.stdout).toContain("web rewritten in the rc's baked files");
    const proof = run.stdout.split('\n').find((l) => l.startsWith("web rewritten in the rc's baked files"))!;
    expect(proof).toContain("0 file(s) byte-identical to the rc's, 3 differ in version strings only");
    for (const f of WEB_FILES) expect(proof).toContain(`${f} (`);

    const released = (await store.getManifest(REPOS.web, RELEASE))!;
    expect(released.descriptor.mediaType).toBe(MEDIA_TYPES.dockerManifestList);
    const rcChildren = platformChildren((await store.getManifest(REPOS.web, RC))!.bytes)!;
    const children = platformChildren(released.bytes)!;
    expect(children.map((c) => c.platform)).toEqual(ARCHES.map((a) => `linux/${a}`));
    for (const [i, child] of children.entries()) {
      const mine = await imageOf(store, REPOS.web, child.digest);
      const theirs = await imageOf(store, REPOS.web, rcChildren[i]!.digest);
      expect(mine.layers.slice(0, -1)).toEqual(theirs.layers); // byte-identical rc layers, in order
      expect(mine.layerTypes.at(-1)).toBe(DOCKER_LAYER);
      expect(mine.config.rootfs.diff_ids.slice(0, -1)).toEqual(theirs.config.rootfs.diff_ids);
      expect(mine.config.history).toHaveLength(theirs.config.history.length + 1);
      expect(mine.config.history.at(-1)!.created_by).toContain(`${RC} -> ${RELEASE}`);
      expect(mine.config.config.Labels[VERSION_LABEL]).toBe(RELEASE);
      // The top layer holds the three rewritten files and their folders, nothing else.
      const top = await readLayer(await store.getBlob(REPOS.web, mine.layers.at(-1)!), { what: 'top' });
      expect(top.filter((n) => n.type === 'file').map((n) => n.path)).toEqual(WEB_FILES);
      // As a container sees it: every file a user reads says the release; links and whiteouts hold.
      const tree = await treeOf(store, REPOS.web, mine.layers);
      for (const path of WEB_FILES) {
        const text = fileText(tree, path);
        expect(text, path).toContain(RELEASE);
        expect(text, path).not.toContain('2.0.0-rc.1');
      }
      expect(fileText(tree, '/srv/web/app.js')).toContain(`/* built for ${ARCHES[i]} */`);
      expect(tree.get('/usr/bin/node')).toEqual({ type: 'symlink', target: '/usr/local/bin/node' });
      expect(tree.get('/usr/share/doc/copy.txt')).toEqual({
        type: 'hardlink',
        target: '/usr/share/doc/a.txt',
      });
      expect(tree.has('/etc/old.conf')).toBe(false);
      expect(fileText(tree, '/srv/web/robots.txt')).toBe('User-agent: *\n');
    }
    // The release index's signature (checked with the public key alone) records the rewrite and
    // its proof, as for a rewrite of our own version layer.
    const statements = [];
    for (const r of await referrersOf(
      store,
      REPOS.web,
      released.descriptor.digest,
      'https://sigstore.dev/cosign/sign/v1',
    )) {
      const payload = verifyDsse(
        await bundleOf(store, REPOS.web, r.digest),
        readFileSync(join(repo.dir, 'release-signing.pub'), 'utf8'),
      );
      if (payload) statements.push(JSON.parse(payload.toString()));
    }
    const reversion = statements.find((st) => st.predicate?.reversion)?.predicate.reversion;
    expect(reversion).toEqual([
      {
        part: 'web',
        strategy: 'rewrite',
        differs: WEB_FILES.map((path) => ({ path, reason: expect.any(String) })),
      },
    ]);
  });

  it('verify --registry --require-signature is in step against the release files', async () => {
    // The site serves what the release image holds (amd64's files).
    const child = platformChildren((await store.getManifest(REPOS.web, RELEASE))!.bytes)![0]!;
    const tree = await treeOf(store, REPOS.web, (await imageOf(store, REPOS.web, child.digest)).layers);
    const webRoot = join(work, 'web');
    for (const path of WEB_FILES) {
      const file = join(webRoot, path.replace('/srv/web/', ''));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, fileText(tree, path));
    }
    deployment = await startInProcessDeployment({
      name: 'site',
      apiVersion: RELEASE,
      workerVersion: RELEASE,
      webRoot,
    });
    const args = [
      'verify',
      ...['--url', deployment.url, '--web-url', deployment.webUrl, '--worker-url', deployment.workerUrl],
      ...['--expect', RELEASE, '--registry', '--require-signature', '--no-cli'],
    ];
    const result = await release([...args, '--json']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = jsonOf<{
      inStep: boolean;
      provenance: {
        artifact: string;
        restampMatches: boolean;
        releaseSignature: string;
        platforms: { codeLayers: { count: number; equal: boolean }; restampMatches: boolean }[];
      }[];
    }>(result);
    expect(out.inStep).toBe(true);
    const web = out.provenance.find((p) => p.artifact === 'web')!;
    expect(web).toMatchObject({ restampMatches: true, releaseSignature: 'bound' });
    expect(web.platforms.map((p) => [p.codeLayers, p.restampMatches])).toEqual(
      ARCHES.map(() => [{ count: 3, equal: true }, true]),
    );
    expect(readFileSync(join(webRoot, 'version.json'), 'utf8')).toContain(RELEASE);
  });
});

describe("verify's re-stamp of an rc without our version layer", { timeout: 60_000 }, () => {
  it('accepts the top-layer release, a config-only one and a files-only one made before; not another', async () => {
    const rcIndex = (await store.getManifest(REPOS.web, RC))!;
    const source = {
      store,
      trusted: undefined,
      repository: REPOS.web,
      tag: 'v2.0.1',
      carried: async () => new Map<string, string>(),
    };
    const withTop = await restampImage(store, REPOS.web, rcIndex, 'v2.0.1');
    const configOnly = await restampImage(store, REPOS.web, rcIndex, 'v2.0.1', { topLayer: false });
    // As releases were made before the top layer carried the rc's folders and owners.
    const filesOnly = await restampImage(store, REPOS.web, rcIndex, 'v2.0.1', { topLayer: 'files-only' });
    expect(withTop.topLayer?.files).toEqual(WEB_FILES);
    expect(configOnly.topLayer).toBeUndefined();
    expect(filesOnly.manifest.descriptor.digest).not.toBe(withTop.manifest.descriptor.digest);
    for (const made of [withTop, configOnly, filesOnly]) {
      await pushRestamped(store, REPOS.web, made);
      const reading = await manifestProvenance(source, made.manifest, rcIndex.descriptor.digest);
      expect(reading.restampMatches).toBe(true);
    }
    const other = await restampImage(store, REPOS.web, rcIndex, 'v2.0.2');
    await pushRestamped(store, REPOS.web, other);
    expect((await manifestProvenance(source, other.manifest, rcIndex.descriptor.digest)).restampMatches).toBe(
      false,
    );
  });
});

interface Image {
  layers: string[];
  layerTypes: string[];
  config: {
    rootfs: { diff_ids: string[] };
    history: { created_by?: string }[];
    config: { Labels: Record<string, string> };
  };
}

async function imageOf(s: ImageStore, repository: string, digest: string): Promise<Image> {
  const json = JSON.parse(Buffer.from((await s.getManifest(repository, digest))!.bytes).toString()) as {
    config: { digest: string };
    layers: { digest: string; mediaType: string }[];
  };
  return {
    layers: json.layers.map((l) => l.digest),
    layerTypes: json.layers.map((l) => l.mediaType),
    config: JSON.parse(Buffer.from(await s.getBlob(repository, json.config.digest)).toString()),
  };
}

async function treeOf(s: ImageStore, repository: string, layers: string[]): Promise<Map<string, TreeNode>> {
  const read = [];
  for (const digest of layers)
    read.push(await readLayer(await s.getBlob(repository, digest), { what: digest }));
  return applyLayers(read);
}

function fileText(tree: Map<string, TreeNode>, path: string): string {
  const node = tree.get(path);
  if (node?.type !== 'file') throw new Error(`${path} is not a file in the image`);
  return node.content.toString('utf8');
}

/**
 * The web as buildx pushes a two-platform image with the Docker media types: per platform a
 * base layer (a symlink, a hardlink, a file a later layer removes), the web layer (the version
 * baked into three files), a last layer (one more file, a whiteout); config with the version label
 * and env, a history line per layer. Returns the manifest list's digest, tagged as the rc.
 */
async function pushBuildxWeb(s: ImageStore, repository: string): Promise<string> {
  const children = [];
  for (const arch of ARCHES) {
    const tars = [
      await tarOf([
        { name: 'usr/local/bin/node', body: '#!/bin/sh\n' },
        { name: 'usr/bin/node', type: 'symlink', linkname: '/usr/local/bin/node' },
        { name: 'usr/share/doc/a.txt', body: 'a base file\n' },
        { name: 'usr/share/doc/copy.txt', type: 'link', linkname: 'usr/share/doc/a.txt' },
        { name: 'etc/old.conf', body: 'old\n' },
      ]),
      await tarOf([
        { name: 'srv/web/', type: 'directory', mode: 0o755 },
        {
          name: 'srv/web/app.js',
          body: `const SERVICE_CLIENT_VERSION = "${RC}";\nconsole.log("web", SERVICE_CLIENT_VERSION, "${RC.slice(1)}");\n/* built for ${arch} */\n`,
        },
        {
          name: 'srv/web/index.html',
          body: `<!doctype html><meta name="service-client-version" content="${RC}"><title>web ${RC}</title><script src="app.js?v=${RC}"></script>`,
        },
        { name: 'srv/web/version.json', body: JSON.stringify({ version: RC }) },
      ]),
      await tarOf([
        { name: 'srv/web/robots.txt', body: 'User-agent: *\n' },
        { name: 'etc/.wh.old.conf', body: '' },
      ]),
    ];
    const layers = tars.map((tar) => {
      const gz = gzipSync(tar);
      return { tar, gz, descriptor: { mediaType: DOCKER_LAYER, digest: sha256Digest(gz), size: gz.length } };
    });
    const config = Buffer.from(
      JSON.stringify({
        architecture: arch,
        os: 'linux',
        created: '2026-11-01T10:00:00Z',
        config: {
          Env: ['PATH=/usr/local/bin:/usr/bin', `SERVICE_CLIENT_VERSION=${RC}`],
          Labels: { [VERSION_LABEL]: RC },
        },
        rootfs: { type: 'layers', diff_ids: layers.map((l) => sha256Digest(l.tar)) },
        history: ['ADD base', 'COPY dist/ /srv/web/', 'RUN rm /etc/old.conf'].map((line) => ({
          created: '2026-11-01T10:00:00Z',
          created_by: line,
        })),
      }),
    );
    for (const l of layers) await s.putBlob(repository, l.descriptor.digest, l.gz);
    await s.putBlob(repository, sha256Digest(config), config);
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.dockerManifest,
        config: {
          mediaType: 'application/vnd.docker.container.image.v1+json',
          digest: sha256Digest(config),
          size: config.length,
        },
        layers: layers.map((l) => l.descriptor),
      }),
    );
    await s.putManifest(repository, sha256Digest(manifest), manifest, MEDIA_TYPES.dockerManifest);
    children.push({
      mediaType: MEDIA_TYPES.dockerManifest,
      digest: sha256Digest(manifest),
      size: manifest.length,
      platform: { architecture: arch, os: 'linux' },
    });
  }
  const list = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.dockerManifestList, manifests: children }),
  );
  await s.putManifest(repository, RC, list, MEDIA_TYPES.dockerManifestList);
  return sha256Digest(list);
}
