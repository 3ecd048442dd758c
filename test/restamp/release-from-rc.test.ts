import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveSignatureValid, signArchive } from '../../src/archives/archive-signature.ts';
import { type StartedService, startReleasedImage } from '../../src/commands/rehearse/start-released-image.ts';
import type { OciImageConfig } from '../../src/oci-image/image-config.ts';
import { createLayer, type Layer, sha256 } from '../../src/oci-image/layer.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { readVersionLayerFiles, restampVersionLayer } from '../../src/restamp/restamp-version-layer.ts';
import { checkImageSignature } from '../../src/signing/image-signature.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { baseEnv, npmInstall, run as runProcess, svcIn } from '../svc/support.ts';
import { publicKeyOf } from './keys.ts';

// Against a real docker-registry: the reference service built as v1.0.0-rc.1 (oci engine,
// pushed), promoted and signed as the rc, then released as v1.0.0 from it. The release must keep
// every code layer (checked by digest and by skopeo), change only the version fields of the config
// and the version layer, be signed bound to the rc, and verify must refuse a tampered version layer.

const RC = 'v1.0.0-rc.1';
const RELEASE = 'v1.0.0';
const IMAGES = { api: 'service-api', worker: 'service-worker', web: 'service-web' } as const;
type Artifact = keyof typeof IMAGES;
const ARTIFACTS = Object.keys(IMAGES) as Artifact[];
const PASSPHRASE = 'restamp-test-passphrase';

let registry: RunningRegistry;
let repo: GitRepo;
let store: RegistryStore;
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };
const rcDigest = {} as Record<Artifact, string>;
const releaseDigest = {} as Record<Artifact, string>;
let dryRunSources: Record<string, string>;
let releaseRun: RunResult;

const release = (args: string[], timeoutMs = 120_000) => runRelease(args, { cwd: repo.dir, env, timeoutMs });

interface PromoteJson {
  plan: { artifacts: { artifact: string; source: string; writes: unknown[] }[] };
  signing: unknown;
}

beforeAll(async () => {
  registry = await startRegistry({ deleteEnabled: true });
  store = new RegistryStore({ registry: registry.host, env: {} });
  repo = GitRepo.create('restamp-');
  await writeKeyPair(repo.dir, { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE });
  // The reference service, declared as this repository's own release.config.ts declares it.
  writeReferenceConfig(repo.dir, {
    registry: registry.host,
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  repo.write('.gitignore', 'dist/\n.release/\n');
  repo.commit('the service');
  repo.tag(RC);
  for (const args of [['stamp'], ['build', '--engine', 'oci', '--push'], ['promote', '--channel', 'rc']]) {
    const run = await release([...args, '--json'], 240_000);
    expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  }
  for (const a of ARTIFACTS) rcDigest[a] = (await store.resolve(IMAGES[a], RC))!.digest;
  repo.tag(RELEASE);
  const promote = ['promote', '--channel', 'release', '--from', RC, '--version', RELEASE, '--json'];
  const dry = await release([...promote, '--dry-run']);
  expect(dry.code, dry.stderr).toBe(0);
  dryRunSources = Object.fromEntries(
    jsonOf<PromoteJson>(dry).plan.artifacts.map((a) => [a.artifact, a.source]),
  );
  releaseRun = await release(promote);
  expect(releaseRun.code, releaseRun.stderr).toBe(0);
  for (const a of ARTIFACTS) releaseDigest[a] = (await store.resolve(IMAGES[a], RELEASE))!.digest;
}, 420_000);

afterAll(async () => {
  await registry?.stop();
  repo?.remove();
});

function skopeo(...args: string[]): Record<string, unknown> {
  return JSON.parse(execFileSync('skopeo', [...args], { encoding: 'utf8' })) as Record<string, unknown>;
}
const inspect = (artifact: Artifact, tag: string, config = false) =>
  skopeo(
    'inspect',
    '--tls-verify=false',
    ...(config ? ['--config'] : []),
    `docker://${registry.host}/${IMAGES[artifact]}:${tag}`,
  );

async function manifestOf(artifact: Artifact, reference: string) {
  const m = await store.getManifest(IMAGES[artifact], reference);
  return JSON.parse(Buffer.from(m!.bytes).toString('utf8')) as {
    config: { digest: string };
    layers: { digest: string; size: number; mediaType: string }[];
    annotations?: Record<string, string>;
  };
}
async function configOf(artifact: Artifact, reference: string): Promise<OciImageConfig> {
  const m = await manifestOf(artifact, reference);
  return JSON.parse(Buffer.from(await store.getBlob(IMAGES[artifact], m.config.digest)).toString('utf8'));
}

/**
 * Replace the release's version layer by `layer`, config and manifest made consistent again, and
 * push the result over the release tag (the registry lets a tag move): what an attacker with
 * push rights could do after the release.
 */
async function pushOverRelease(artifact: Artifact, layer: Layer): Promise<void> {
  const repository = IMAGES[artifact];
  const manifest = await manifestOf(artifact, RELEASE);
  const config = await configOf(artifact, RELEASE);
  await store.putBlob(repository, layer.digest, layer.bytes);
  config.rootfs.diff_ids[config.rootfs.diff_ids.length - 1] = layer.diffId;
  config.config!.Labels!['org.service-release.version-layer.digest'] = layer.digest;
  const configBytes = Buffer.from(JSON.stringify(config));
  await store.putBlob(repository, sha256(configBytes), configBytes);
  const tampered = Buffer.from(
    JSON.stringify({
      ...manifest,
      config: { ...manifest.config, digest: sha256(configBytes), size: configBytes.length },
      layers: [
        ...manifest.layers.slice(0, -1),
        { ...manifest.layers.at(-1)!, digest: layer.digest, size: layer.size },
      ],
    }),
  );
  await store.putManifest(repository, RELEASE, tampered, MEDIA_TYPES.ociManifest);
}

/** The files of an image's version layer (its last layer), by absolute path. */
async function versionLayerOf(artifact: Artifact, reference: string): Promise<Map<string, Buffer>> {
  const layer = (await manifestOf(artifact, reference)).layers.at(-1)!;
  return readVersionLayerFiles(await store.getBlob(IMAGES[artifact], layer.digest));
}
const CLI_ARCHIVE = '/app/service-cli.tar.gz';
const CLI_SIGNATURE = `${CLI_ARCHIVE}.sig`;

describe('release promote --channel release --from <rc>', () => {
  it('writes new digests that a dry run predicted, and tags latest on them', async () => {
    for (const a of ARTIFACTS) {
      expect(releaseDigest[a]).not.toBe(rcDigest[a]);
      expect(dryRunSources[a]).toBe(releaseDigest[a]);
      expect((await store.resolve(IMAGES[a], 'latest'))?.digest).toBe(releaseDigest[a]);
    }
  });

  it('keeps every code layer of the rc, by digest and as skopeo reads them', async () => {
    for (const a of ARTIFACTS) {
      const rc = inspect(a, RC) as { Layers: string[]; Digest: string };
      const rel = inspect(a, RELEASE) as { Layers: string[]; Digest: string; Labels: Record<string, string> };
      expect(rc.Digest).toBe(rcDigest[a]);
      expect(rel.Digest).toBe(releaseDigest[a]);
      expect(rel.Labels['org.opencontainers.image.version']).toBe(RELEASE);
      expect(rel.Labels['org.service-release.restamped-from']).toBe(rcDigest[a]);
      if (a === 'worker') {
        expect(rel.Layers).toEqual(rc.Layers); // no version layer: only the config changed
      } else {
        expect(rel.Layers.slice(0, -1)).toEqual(rc.Layers.slice(0, -1));
        expect(rel.Layers.at(-1)).not.toBe(rc.Layers.at(-1));
        expect(rel.Layers.at(-1)).toBe(rel.Labels['org.service-release.version-layer.digest']);
      }
      expect((await manifestOf(a, RELEASE)).annotations?.['org.service-release.restamped-from']).toBe(
        rcDigest[a],
      );
    }
  });

  it('changes only the version fields of the config', async () => {
    for (const a of ARTIFACTS) {
      const rc = inspect(a, RC, true) as unknown as OciImageConfig;
      const rel = inspect(a, RELEASE, true) as unknown as OciImageConfig;
      const normal = (c: OciImageConfig, version: string) => {
        const labels = { ...c.config!.Labels };
        delete labels['org.service-release.restamped-from'];
        delete labels['org.service-release.version-layer.digest'];
        expect(labels['org.opencontainers.image.version']).toBe(version);
        labels['org.opencontainers.image.version'] = 'X';
        const env = c.config!.Env!.map((line) => line.replace(`=${version}`, '=X'));
        const hasVersionLayer = a !== 'worker';
        return {
          ...c,
          config: { ...c.config, Labels: labels, Env: env },
          rootfs: {
            ...c.rootfs,
            diff_ids: hasVersionLayer ? c.rootfs.diff_ids.slice(0, -1) : c.rootfs.diff_ids,
          },
        };
      };
      expect(normal(rel, RELEASE)).toEqual(normal(rc, RC));
      expect(rel.config!.Env).toContain(
        `${a === 'web' ? 'SERVICE_CLIENT_VERSION' : 'SERVICE_VERSION'}=${RELEASE}`,
      );
      expect(rel.created).toBe(rc.created);
    }
  });

  it('re-stamps the version layer: the web files and the CLI archive, svc.js byte-identical', async () => {
    const files = async (a: Artifact, tag: string) => {
      const layer = (await manifestOf(a, tag)).layers.at(-1)!;
      const dir = mkdtempSync(join(tmpdir(), 'restamp-layer-'));
      try {
        const tar = join(dir, 'layer.tar');
        writeFileSync(tar, gunzipSync(await store.getBlob(IMAGES[a], layer.digest)));
        return (path: string) => execFileSync('tar', ['-xOf', tar, path]);
      } finally {
        setTimeout(() => rmSync(dir, { recursive: true, force: true }), 5_000);
      }
    };
    const web = await files('web', RELEASE);
    expect(JSON.parse(web('app/web/version.json').toString())).toEqual({ version: RELEASE });
    expect(web('app/web/index.html').toString()).toContain(
      `<meta name="service-client-version" content="${RELEASE}"`,
    );

    const archiveOf = async (tag: string) => {
      const get = await files('api', tag);
      const dir = mkdtempSync(join(tmpdir(), 'restamp-cli-'));
      const file = join(dir, 'cli.tgz');
      writeFileSync(file, get('app/service-cli.tar.gz'));
      const read = (path: string) => execFileSync('tar', ['-xzOf', file, path]);
      const out = { pkg: JSON.parse(read('package/package.json').toString()), svc: read('package/svc.js') };
      rmSync(dir, { recursive: true, force: true });
      return out;
    };
    const [rc, rel] = await Promise.all([archiveOf(RC), archiveOf(RELEASE)]);
    expect(rc.pkg.version).toBe('1.0.0-rc.1');
    expect(rel.pkg).toMatchObject({ version: '1.0.0', serviceVersion: RELEASE });
    expect(Buffer.compare(rel.svc, rc.svc)).toBe(0);
  });

  it("serves the CLI archive signed: the .sig rides in the API's version layer, re-signed for the release", async () => {
    const key = (await publicKeyOf(repo.dir)).key;
    const rc = await versionLayerOf('api', RC);
    const rel = await versionLayerOf('api', RELEASE);
    expect([...rc.keys()].sort()).toEqual([CLI_ARCHIVE, CLI_SIGNATURE]);
    expect([...rel.keys()].sort()).toEqual([CLI_ARCHIVE, CLI_SIGNATURE]);
    const rcSignature = rc.get(CLI_SIGNATURE)!.toString('utf8');
    const relSignature = rel.get(CLI_SIGNATURE)!.toString('utf8');
    expect(archiveSignatureValid(rc.get(CLI_ARCHIVE)!, rcSignature, key)).toBe(true);
    expect(archiveSignatureValid(rel.get(CLI_ARCHIVE)!, relSignature, key)).toBe(true);
    // The rc's signature would not do: the release's archive is re-packed with its own version.
    expect(archiveSignatureValid(rel.get(CLI_ARCHIVE)!, rcSignature, key)).toBe(false);
    // The signature is no part of the code: the rc's code layers are all still there.
    expect((await configOf('api', RELEASE)).config?.Labels?.['org.service-release.version-layer.files']).toBe(
      CLI_ARCHIVE,
    );
  });

  it('refuses to re-stamp a signed CLI archive without the key, before it writes anything', async () => {
    const NEXT = 'v1.0.1';
    // A release is made only from an rc of its own X.Y.Z: the signed rc's digests, tagged as an
    // rc of the next version (their signatures are by digest, so they still verify).
    const NEXT_RC = 'v1.0.1-rc.1';
    for (const a of ARTIFACTS) {
      const manifest = (await store.getManifest(IMAGES[a], rcDigest[a]!))!;
      await store.putManifest(IMAGES[a], NEXT_RC, manifest.bytes, manifest.descriptor.mediaType);
    }
    const latest = Object.fromEntries(
      await Promise.all(ARTIFACTS.map(async (a) => [a, (await store.resolve(IMAGES[a], 'latest'))?.digest])),
    );
    // The same project without a private key anywhere (no signing.privateKey, no --key, no env).
    writeReferenceConfig(repo.dir, {
      registry: registry.host,
      signing: { publicKey: 'release-signing.pub' },
    });
    try {
      const run = await release(['promote', '--channel', 'release', '--from', NEXT_RC, '--version', NEXT]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).toContain(`${CLI_ARCHIVE} is signed, and the release re-packs it`);
      expect(run.stderr).toContain('nothing was written');
      for (const a of ARTIFACTS) {
        expect(await store.resolve(IMAGES[a], NEXT)).toBeUndefined();
        expect((await store.resolve(IMAGES[a], 'latest'))?.digest).toBe(latest[a]);
      }
    } finally {
      writeReferenceConfig(repo.dir, {
        registry: registry.host,
        signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
      });
    }
  });

  it('checked the rc signatures, then signed the release bound to the rc: both verify', async () => {
    const out = jsonOf<PromoteJson>(releaseRun);
    expect(out.signing).toMatchObject({ status: 'verified' });
    const key = await publicKeyOf(repo.dir);
    for (const a of ARTIFACTS) {
      const rc = await checkImageSignature(store, key, { repository: IMAGES[a], digest: rcDigest[a] });
      expect(rc.status).toBe('valid');
      const rel = await checkImageSignature(store, key, { repository: IMAGES[a], digest: releaseDigest[a] });
      expect(rel.status).toBe('valid');
      expect(rel.signatures.find((s) => s.valid)?.madeFrom).toBe(rcDigest[a]);
    }
  });

  it('a re-run writes nothing and lands on the same digests', async () => {
    const again = await release([
      'promote',
      '--channel',
      'release',
      '--from',
      RC,
      '--version',
      RELEASE,
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    const plan = jsonOf<PromoteJson>(again).plan;
    for (const a of plan.artifacts) {
      expect(a.source).toBe(releaseDigest[a.artifact as Artifact]);
      expect(a.writes).toEqual([]);
    }
  });
});

describe('release verify --registry on the release', () => {
  const services: StartedService[] = [];
  let work: string;
  let urls: Record<Artifact, string>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'restamp-deploy-'));
    const api = await startReleasedImage({
      store,
      artifact: 'api',
      repository: IMAGES.api,
      tag: RELEASE,
      dir: join(work, 'api'),
    });
    services.push(api);
    const worker = await startReleasedImage({
      store,
      artifact: 'worker',
      repository: IMAGES.worker,
      tag: RELEASE,
      dir: join(work, 'worker'),
    });
    services.push(worker);
    const web = await startReleasedImage({
      store,
      artifact: 'web',
      repository: IMAGES.web,
      tag: RELEASE,
      dir: join(work, 'web'),
      env: { API_URL: api.url },
    });
    services.push(web);
    urls = { api: api.url, worker: worker.url, web: web.url };
  }, 60_000);

  afterAll(async () => {
    for (const s of services) await s.process.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const verify = () =>
    release([
      'verify',
      ...['--url', urls.api, '--web-url', urls.web, '--worker-url', urls.worker],
      ...['--expect', RELEASE, '--registry', '--no-cli', '--json'],
    ]);

  interface VerifyJson {
    inStep: boolean;
    artifacts: { name: string; version: string }[];
    findings: { code: string; artifact?: string; severity: string }[];
    provenance: {
      artifact: string;
      imageVersion: string;
      madeFrom: string;
      codeLayers: { equal: boolean };
      restampMatches: boolean;
      rcSignature: string;
      releaseSignature: string;
      cliArchiveSignature?: string;
    }[];
  }

  it('is in step at v1.0.0: every artifact and image reports it, and is its signed rc re-stamped', async () => {
    const result = await verify();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = jsonOf<VerifyJson>(result);
    expect(out.artifacts.filter((a) => a.name !== 'cli').map((a) => [a.name, a.version])).toEqual([
      ['api', RELEASE],
      ['worker', RELEASE],
      ['web', RELEASE],
    ]);
    for (const a of ARTIFACTS) {
      expect(out.provenance.find((p) => p.artifact === a)).toMatchObject({
        imageVersion: RELEASE,
        madeFrom: rcDigest[a],
        codeLayers: { equal: true },
        restampMatches: true,
        rcSignature: 'valid',
        releaseSignature: 'bound',
      });
    }
    // The API's archive was signed in the rc and re-signed for the release with the same key.
    expect(out.provenance.find((p) => p.artifact === 'api')?.cliArchiveSignature).toBe('valid');
    const text = await release([
      'verify',
      '--url',
      urls.api,
      '--web-url',
      urls.web,
      '--worker-url',
      urls.worker,
      '--expect',
      RELEASE,
      '--registry',
      '--no-cli',
    ]);
    expect(text.stdout).toMatch(
      /image service-web:v1\.0\.0@sha256:[0-9a-f]{12}… reports v1\.0\.0, made from sha256:[0-9a-f]{12}… \(v1\.0\.0-rc\.1\), 2 code layer\(s\) equal to the rc's, exactly the rc re-stamped, rc signature valid, release signature bound/,
    );
  });

  it('an svc built as the rc, its key baked in, updates from the released API: the re-signed archive verifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restamp-svc-'));
    try {
      const rcArchive = join(dir, 'service-cli.tar.gz');
      writeFileSync(rcArchive, (await versionLayerOf('api', RC)).get(CLI_ARCHIVE)!);
      const prefix = join(dir, 'prefix');
      expect((await npmInstall(prefix, rcArchive)).code).toBe(0);
      const env = baseEnv({ home: join(dir, 'home'), binDirs: [join(prefix, 'bin')] });
      const result = await runProcess(svcIn(prefix), ['update', '--url', urls.api], {
        env,
        timeoutMs: 120_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/signature verified with key [0-9a-f]{16} \(baked into this svc\)/);
      expect(result.stdout).toContain(`svc updated: ${RC} -> ${RELEASE}`);
      const version = await runProcess(svcIn(prefix), ['--version'], { env });
      expect(version.stdout).toContain(RELEASE);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("refuses a release whose CLI archive signature was swapped for another key's", async () => {
    // Exactly the release, but the archive's .sig made by another key: the version layer is what
    // re-stamping gives with that signature, config and manifest made consistent, pushed over the tag.
    const repository = IMAGES.api;
    const rcLayer = (await manifestOf('api', RC)).layers.at(-1)!;
    const intruder = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const layer = await restampVersionLayer(
      await store.getBlob(repository, rcLayer.digest),
      [CLI_ARCHIVE],
      RELEASE,
      (archive) => signArchive(archive, intruder.privateKey),
    );
    await pushOverRelease('api', layer);
    try {
      const result = await verify();
      expect(result.code).toBe(1);
      const out = jsonOf<VerifyJson>(result);
      const api = out.findings.filter((f) => f.artifact === 'api').map((f) => f.code);
      expect(api).toContain('RELEASE_ARCHIVE_UNSIGNED');
      expect(api).toContain('RELEASE_NOT_BOUND');
      expect(out.provenance.find((p) => p.artifact === 'api')).toMatchObject({
        codeLayers: { equal: true },
        cliArchiveSignature: 'invalid',
      });
    } finally {
      const real = await store.getManifest(repository, releaseDigest.api);
      await store.putManifest(repository, RELEASE, real!.bytes, real!.descriptor.mediaType);
    }
  });

  it('refuses a release whose version layer was tampered with after the release', async () => {
    // A script slipped into index.html, the version left as it was: config and manifest made
    // consistent again, pushed over the release tag (the registry lets a tag move).
    const repository = IMAGES.web;
    const html = `<!doctype html><meta charset="utf-8" />\n<meta name="service-client-version" content="${RELEASE}" /><script>steal()</script>`;
    const layer = await createLayer(
      [
        { type: 'file', path: '/app/web/index.html', content: html },
        { type: 'file', path: '/app/web/version.json', content: `${JSON.stringify({ version: RELEASE })}\n` },
      ],
      0,
    );
    await pushOverRelease('web', layer);

    const result = await verify();
    expect(result.code).toBe(1);
    const out = jsonOf<VerifyJson>(result);
    expect(out.inStep).toBe(false);
    const web = out.findings.filter((f) => f.artifact === 'web').map((f) => f.code);
    expect(web).toContain('RELEASE_NOT_RC_RESTAMP');
    expect(web).toContain('RELEASE_NOT_BOUND'); // its signature was for the real release digest
    expect(out.provenance.find((p) => p.artifact === 'web')).toMatchObject({
      codeLayers: { equal: true },
      restampMatches: false,
    });
    // The untouched images stay clean.
    expect(out.findings.filter((f) => f.artifact !== 'web' && f.severity === 'drift')).toEqual([]);

    // Put the real release back (other tests in this file may run after).
    const real = await store.getManifest(repository, releaseDigest.web);
    await store.putManifest(repository, RELEASE, real!.bytes, real!.descriptor.mediaType);
  });
});
