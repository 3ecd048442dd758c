import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Digest } from '../../src/registry/digest.ts';
import { FlatLayoutStore } from '../../src/registry/flat-layout-store.ts';
import { packArchive, unpackArchive } from '../../src/registry/oci-archive.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { listReferrers, updateFallbackIndex } from '../../src/registry/referrers.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import {
  checkImageSignature,
  SIGNATURE_ARTIFACT_TYPE,
  signImage,
} from '../../src/signing/image-signature.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { parsePrivateKey, parsePublicKey } from '../../src/signing/keys.ts';
import { bundleOf, referrersOf, verifyDsse } from '../evidence/dsse.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import {
  cosignAttestations,
  cosignSignatures,
  type PlainRegistry,
  referrersOf as plainReferrers,
  plainRegistry,
} from '../helpers/independent-verifier.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { runSignalled } from '../promote/interrupt.ts';
import { ARTIFACTS, pushTwoPlatformSet, REPOS, recordDigests, stampedProject } from '../promote/project.ts';
import { type InProcessDeployment, startInProcessDeployment } from '../verify/in-process-deployments.ts';
import { completeTags, expectedDigests, type MirrorJson } from './mirror-checks.ts';

// A signed two-platform release made from an rc, with its release set, on one real docker-registry
// goes to an oci-archive, then from the archive into a second docker-registry: every digest kept,
// skopeo reads both, the signatures verify with the public key alone, and release verify passes
// with a config that names only the second registry. Tampered, stripped and foreign-key archives
// are refused with no tag written; a load killed at 10 moments and run again ends complete.

const execFileP = promisify(execFile);
const RC = 'v3.2.0-rc.1';
const RELEASE = 'v3.2.0';
const SET_TYPE = 'https://service-release.dev/release-set/v1';
const PASSPHRASE = 'mirror-test-passphrase';
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };

let source: RunningRegistry;
let target: RunningRegistry;
let repo: GitRepo;
let work: string;
let deployment: InProcessDeployment;
const archive = () => join(work, 'release.tar');
const release = (args: string[], extra: Record<string, string> = {}) =>
  // Generous: a load writes cosign's .sig and .att beside every digest, and the machine may be busy.
  runRelease(args, { cwd: repo.dir, env: { ...env, ...extra }, timeoutMs: 120_000 });
/** `release mirror --version <RELEASE> [--from <from>] --to <to> [flags]`, as its arguments. */
const mirrorArgs = (from: string | undefined, to: string, ...flags: string[]) => [
  'mirror',
  ...['--version', RELEASE],
  ...(from ? ['--from', from] : []),
  ...['--to', to],
  ...flags,
];
const mirror = (from: string | undefined, to: string, ...flags: string[]) =>
  release(mirrorArgs(from, to, ...flags));
const publicKey = () => parsePublicKey(readFileSync(join(repo.dir, 'release-signing.pub'), 'utf8'), 'pub');

beforeAll(async () => {
  [source, target] = await Promise.all([startRegistry(), startRegistry()]);
  const store = new RegistryStore({ registry: source.host, env: {} });
  repo = await stampedProject(RC, {
    registry: source.host,
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  await writeKeyPair(repo.dir, env);
  // Web's rc is a Docker manifest list: the mirror finds it through its children, as verify does.
  recordDigests(repo, await pushTwoPlatformSet(store, RC), RC);
  const rc = await release(['promote', '--channel', 'rc']);
  expect(rc.code, rc.stderr).toBe(0);
  repo.tag(RELEASE);
  const full = await release(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
  expect(full.code, full.stderr).toBe(0);
  work = mkdtempSync(join(tmpdir(), 'mirror-test-'));
  // The far side's config: the second registry and the public key, nothing else.
  const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
  writeFileSync(
    join(repo.dir, 'far-side.config.json'),
    JSON.stringify({ ...config, registry: target.host, signing: { publicKey: 'release-signing.pub' } }),
  );
  const webRoot = join(work, 'web');
  mkdirSync(webRoot);
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>web</title>');
  writeFileSync(join(webRoot, 'version.json'), JSON.stringify({ version: RELEASE }));
  deployment = await startInProcessDeployment({
    name: 'far',
    apiVersion: RELEASE,
    workerVersion: RELEASE,
    webRoot,
  });
}, 120_000);

afterAll(async () => {
  await deployment?.close();
  repo?.remove();
  await Promise.all([source?.stop(), target?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * What cosign, Kyverno and policy-controller would find, checked with no toolkit code: every image
 * digest (index and platform child, release and rc) has a `.sig` whose payload names it and
 * verifies with node:crypto and the release public key, an `.att` holding its release set, and
 * every bundle referrer is typed as a Sigstore bundle.
 */
async function expectCosignReadable(registry: PlainRegistry, images: MirrorJson['images']) {
  const pem = readFileSync(join(repo.dir, 'release-signing.pub'), 'utf8');
  for (const image of images) {
    for (const digest of [image.digest, ...image.children]) {
      const name = `${image.repository}@${digest}`;
      const claims = await cosignSignatures(registry, image.repository, digest, pem);
      expect(claims.length, name).toBeGreaterThan(0);
      expect(claims[0].critical.image['docker-manifest-digest']).toBe(digest);
      expect(await cosignAttestations(registry, image.repository, digest, pem), name).toContain(SET_TYPE);
      const referrers = await plainReferrers(registry, image.repository, digest);
      expect(referrers.length, name).toBeGreaterThan(0);
      for (const r of referrers)
        expect(r.descriptor.artifactType, name).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    }
  }
}

describe('release mirror: registry -> archive -> registry', { timeout: 300_000 }, () => {
  let set: MirrorJson;

  it('writes a reproducible archive of the whole set that skopeo reads', async () => {
    const run = await mirror(undefined, `oci-archive:${archive()}`, '--json');
    expect(run.code, run.stderr).toBe(0);
    set = jsonOf<MirrorJson>(run);
    // api, worker, web at the release and at the rc, each with two platform images.
    expect(set.images.map((i) => i.tag)).toEqual([RELEASE, RELEASE, RELEASE, RC, RC, RC]);
    // The source after rc -> release from the rc: cosign's formats on every digest.
    await expectCosignReadable(plainRegistry(source.host), set.images);
    expect(set.images.every((i) => i.children.length === 2)).toBe(true);
    // Signatures of each index and child, and the release set of each.
    expect(set.manifests.filter((m) => m.role === 'referrer').length).toBeGreaterThanOrEqual(6 * 3 * 2);
    const bytes = readFileSync(archive());
    expect(set.archive).toEqual({
      file: `oci-archive:${archive()}`,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
    });
    // A dry run lists the same set and writes nothing; named without its `v` (3.2.0), the
    // version is the same release.
    const dryTar = join(work, 'dry.tar');
    const dry = await release([
      ...['mirror', '--version', RELEASE.slice(1), '--to', `oci-archive:${dryTar}`],
      ...['--dry-run', '--json'],
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonOf<MirrorJson>(dry).images).toEqual(set.images);
    expect(existsSync(dryTar)).toBe(false);
    // A scheduler run from the worker's image (one image, two roles): the image is carried once,
    // both roles named, and the set is the same.
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    writeFileSync(
      join(repo.dir, 'roles.config.json'),
      JSON.stringify({
        ...config,
        artifacts: {
          worker: { role: 'worker', image: REPOS.worker },
          scheduler: { role: 'worker', image: REPOS.worker, command: ['node', 'cron.mjs'] },
        },
      }),
    );
    const roles = await release([
      ...['mirror', '--config', 'roles.config.json', '--version', RELEASE, '--to', `oci-archive:${dryTar}`],
      ...['--dry-run', '--json'],
    ]);
    expect(roles.code, roles.stderr).toBe(0);
    const rolesSet = jsonOf<MirrorJson>(roles);
    expect(rolesSet.images.map(({ roles: _, ...image }) => image)).toEqual(set.images);
    expect(rolesSet.manifests.length).toBe(set.manifests.length);
    expect(rolesSet.images.map((i) => [i.repository.split('/').at(-1), i.tag, i.roles ?? null])).toEqual([
      [REPOS.api, RELEASE, null],
      [REPOS.worker, RELEASE, ['worker', 'scheduler']],
      [REPOS.web, RELEASE, null],
      [REPOS.api, RC, null],
      [REPOS.worker, RC, ['worker', 'scheduler']],
      [REPOS.web, RC, null],
    ]);
    const text = await release([
      'mirror',
      '--config',
      'roles.config.json',
      '--version',
      RELEASE,
      '--to',
      `oci-archive:${dryTar}`,
      '--dry-run',
    ]);
    expect(text.stdout).toMatch(
      new RegExp(`${REPOS.worker}:${RELEASE} sha256:[0-9a-f]{64} \\(run as worker, scheduler\\)`),
    );
    const again = await mirror(undefined, `oci-archive:${join(work, 'again.tar')}`);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(work, 'again.tar')).equals(bytes)).toBe(true);
    expect(again.stdout).toContain(
      `archive oci-archive:${join(work, 'again.tar')}: sha256 ${set.archive!.sha256}, ${bytes.length} bytes`,
    );
    // skopeo's OCI layout reader takes OCI manifests and indexes only, not a Docker manifest list
    // (web here): the archive holds web all the same, and skopeo reads it on the second registry.
    for (const image of set.images.filter((i) => i.repository !== REPOS.web)) {
      const { stdout } = await execFileP('skopeo', [
        'inspect',
        '--raw',
        `oci-archive:${archive()}:${image.repository}:${image.tag}`,
      ]);
      expect(sha256Digest(Buffer.from(stdout))).toBe(image.digest);
    }
  });

  it('loads the archive into the second registry, digests and signatures kept', async () => {
    const run = await mirror(`oci-archive:${archive()}`, target.host, '--latest');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`mirrored ${RELEASE} from oci-archive:${archive()} to ${target.host}`);
    expect(run.stdout).toContain('9 tag(s) written'); // 3 rc, 3 release, 3 latest
    const far = new RegistryStore({ registry: target.host, env: {} });
    for (const image of set.images) {
      expect((await far.resolve(image.repository, image.tag))?.digest).toBe(image.digest);
      for (const digest of [image.digest, ...image.children]) {
        const check = await checkImageSignature(far, publicKey(), { repository: image.repository, digest });
        expect(check.status, `${image.repository}@${digest}: ${check.reason}`).toBe('valid');
      }
      const { stdout } = await execFileP('skopeo', [
        'inspect',
        '--raw',
        '--tls-verify=false',
        `docker://${target.host}/${image.repository}:${image.tag}`,
      ]);
      expect(sha256Digest(Buffer.from(stdout))).toBe(image.digest);
    }
    // The release set on every mirrored image and child verifies with node:crypto and the PEM alone.
    const pem = readFileSync(join(repo.dir, 'release-signing.pub'), 'utf8');
    for (const image of set.images) {
      for (const digest of [image.digest, ...image.children]) {
        const [found] = await referrersOf(far, image.repository, digest, SET_TYPE);
        expect(found, `${image.repository}@${digest}`).toBeDefined();
        const payload = verifyDsse(await bundleOf(far, image.repository, found!.digest), pem);
        expect(JSON.parse(payload!.toString('utf8')).predicate.version).toBe(image.tag);
      }
    }
    for (const a of ARTIFACTS)
      expect((await far.resolve(REPOS[a], 'latest'))?.digest).toBe(expectedDigests(set, RELEASE)[REPOS[a]]);
    // The far side carries cosign's .sig and .att too, still verifying.
    await expectCosignReadable(plainRegistry(target.host), set.images);
    // A second load finds everything there: nothing copied.
    const again = await mirror(`oci-archive:${archive()}`, target.host, '--json');
    expect(jsonOf<MirrorJson>(again).written).toMatchObject({
      blobs: { copied: 0 },
      manifests: { copied: 0 },
    });
  });

  it('release verify --registry --require-signature passes with a config naming only the second registry', async () => {
    const result = await release([
      'verify',
      '--config',
      'far-side.config.json',
      ...['--url', deployment.url, '--web-url', deployment.webUrl, '--worker-url', deployment.workerUrl],
      ...['--expect', RELEASE, '--registry', '--require-signature', '--no-cli', '--json'],
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // Read from the second registry: every image's signature, index and platforms, valid.
    const out = jsonOf<{
      signatures: { artifact: string; status: string; platforms?: { status: string }[] }[];
    }>(result);
    expect(out.signatures.map((x) => x.artifact).sort()).toEqual([...ARTIFACTS].sort());
    for (const x of out.signatures) {
      expect(x.status).toBe('valid');
      expect(x.platforms?.map((p) => p.status)).toEqual(['valid', 'valid']);
    }
  });
});

describe('release mirror refuses what the public key does not vouch for', { timeout: 120_000 }, () => {
  /** Unpack the good archive, change it with `edit`, pack it again; load it into a fresh layout. */
  async function loadEdited(name: string, edit: (layout: FlatLayoutStore, dir: string) => Promise<void>) {
    const dir = join(work, `${name}-layout`);
    await unpackArchive(archive(), dir);
    const layout = await FlatLayoutStore.open(dir);
    await edit(layout, dir);
    await layout.flush();
    const file = join(work, `${name}.tar`);
    await packArchive(dir, file);
    const into = join(work, `${name}-target`);
    const run = await mirror(`oci-archive:${file}`, `oci-layout:${into}`, '--json');
    const store = openStore(`oci-layout:${into}`, { cwd: work, env: {} });
    const tags = (await Promise.all(ARTIFACTS.map((a) => store.listTags(REPOS[a])))).flat();
    return { run, tags };
  }
  const apiDigest = async (layout: FlatLayoutStore) => (await layout.resolve(REPOS.api, RELEASE))!.digest;

  it('a tampered blob', async () => {
    const { run, tags } = await loadEdited('tampered', async (layout, dir) => {
      const manifest = JSON.parse(
        Buffer.from((await layout.getManifest(REPOS.worker, RC))!.bytes).toString('utf8'),
      );
      const child = JSON.parse(
        Buffer.from((await layout.getManifest(REPOS.worker, manifest.manifests[0].digest))!.bytes).toString(
          'utf8',
        ),
      );
      const layer = join(dir, 'blobs', 'sha256', child.layers[0].digest.slice(7));
      const bytes = readFileSync(layer);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
      writeFileSync(layer, bytes);
    });
    expect(run.code, run.stdout).toBe(1);
    expect(jsonOf<{ error: { code: string } }>(run).error.code).toBe('BLOB_TAMPERED');
    expect(tags).toEqual([]);
  });

  it('a stripped signature', async () => {
    const { run, tags } = await loadEdited('stripped', async (layout) => {
      const digest = await apiDigest(layout);
      const signatures = await listReferrers(layout, REPOS.api, digest, SIGNATURE_ARTIFACT_TYPE);
      await updateFallbackIndex(layout, REPOS.api, digest, { remove: signatures.map((s) => s.digest) });
    });
    expect(run.code, run.stdout).toBe(1);
    const error = jsonOf<{ error: { code: string; message: string } }>(run).error;
    expect(error.code).toBe('MIRROR_REFUSED');
    expect(error.message).toContain('no signature is attached');
    expect(tags).toEqual([]);
  });

  it('a tampered cosign signature (its payload names another image)', async () => {
    const { run, tags } = await loadEdited('tampered-sig', async (layout) => {
      const digest = await apiDigest(layout);
      const tag = `${digest.replace(':', '-')}.sig`;
      const sig = JSON.parse(Buffer.from((await layout.getManifest(REPOS.api, tag))!.bytes).toString('utf8'));
      const payload = Buffer.from(await layout.getBlob(REPOS.api, sig.layers[0].digest));
      const changed = Buffer.from(payload.toString('utf8').replace(digest, `sha256:${'0'.repeat(64)}`));
      await layout.putBlob(REPOS.api, sha256Digest(changed), changed);
      sig.layers[0] = { ...sig.layers[0], digest: sha256Digest(changed), size: changed.length };
      const bytes = Buffer.from(JSON.stringify(sig));
      await layout.putManifest(REPOS.api, tag, bytes, sig.mediaType);
    });
    expect(run.code, run.stdout).toBe(1);
    const error = jsonOf<{ error: { code: string; message: string } }>(run).error;
    expect(error.code).toBe('MIRROR_REFUSED');
    expect(error.message).toContain('cosign signature sha256-');
    expect(tags).toEqual([]);
  });

  it('a truncated archive', async () => {
    const file = join(work, 'truncated.tar');
    const whole = readFileSync(archive());
    // An odd length: cut inside a block (a header or a blob), never on an entry's boundary.
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2) | 1));
    const into = join(work, 'truncated-target');
    const run = await mirror(`oci-archive:${file}`, `oci-layout:${into}`, '--json');
    expect(run.code, run.stdout).toBe(1);
    expect(jsonOf<{ error: { code: string } }>(run).error.code).toBe('ARCHIVE_UNREADABLE');
    expect(existsSync(into)).toBe(false);
  });

  it('an incomplete archive (the worker left out)', async () => {
    const { run, tags } = await loadEdited('incomplete', async (layout) => {
      for (const tag of [RELEASE, RC]) await layout.deleteTag(REPOS.worker, tag);
    });
    expect(run.code, run.stdout).toBe(1);
    expect(jsonOf<{ error: { code: string; message: string } }>(run).error.message).toContain(
      `has no ${REPOS.worker}:${RELEASE}`,
    );
    expect(tags).toEqual([]);
  });

  it('an archive signed by another key', async () => {
    const other = join(work, 'other-key');
    await writeKeyPair(other, env);
    const key = parsePrivateKey(
      readFileSync(join(other, 'release-signing.key'), 'utf8'),
      PASSPHRASE,
      'other',
    );
    const { run, tags } = await loadEdited('foreign', async (layout) => {
      for (const a of ARTIFACTS) {
        const digest = (await layout.resolve(REPOS[a], RELEASE))!.digest;
        const signatures = await listReferrers(layout, REPOS[a], digest, SIGNATURE_ARTIFACT_TYPE);
        await updateFallbackIndex(layout, REPOS[a], digest, { remove: signatures.map((s) => s.digest) });
        await signImage(layout, key, { repository: REPOS[a], digest });
      }
    });
    expect(run.code, run.stdout).toBe(1);
    expect(jsonOf<{ error: { code: string } }>(run).error.code).toBe('MIRROR_REFUSED');
    expect(tags).toEqual([]);
  });
});

describe('a load killed at 10 moments', { timeout: 120_000 }, () => {
  let third: RunningRegistry;
  beforeAll(async () => {
    third = await startRegistry();
  }, 60_000);
  afterAll(async () => {
    await third?.stop();
  });

  it('never leaves a tag pointing at a missing blob, and the next run completes', async () => {
    const args = mirrorArgs(`oci-archive:${archive()}`, third.host, '--json');
    const far = new RegistryStore({ registry: third.host, env: {} });
    // The killed processes' unpacked archives land under the test's own directory, removed with it.
    const temp = join(work, 'tmp');
    mkdirSync(temp);
    const extra = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE, TMPDIR: temp };
    // How long a whole load takes on this machine now; the kills are spread over it.
    const probe = join(work, 'probe-target');
    const timed = await runSignalled(
      mirrorArgs(`oci-archive:${archive()}`, `oci-layout:${probe}`),
      repo.dir,
      undefined,
      extra,
    );
    expect(timed.code, timed.stderr).toBe(0);
    let killed = 0;
    for (let i = 1; i <= 10; i++) {
      const run = await runSignalled(
        args,
        repo.dir,
        { signal: 'SIGKILL', atMs: Math.round((timed.ms * i) / 11) },
        extra,
      );
      if (run.signal === 'SIGKILL') killed++;
      expect(
        await completeTags(
          far,
          ARTIFACTS.map((a) => REPOS[a]),
        ),
      ).toEqual({ broken: [] });
    }
    expect(killed).toBeGreaterThan(0);
    const last = await runSignalled(args, repo.dir, undefined, extra);
    expect(last.code, last.stderr).toBe(0);
    // The next run removed what the killed ones left in the temporary directory, and its own.
    expect(readdirSync(temp)).toEqual([]);
    const set = JSON.parse(last.stdout) as MirrorJson;
    for (const image of set.images)
      expect((await far.resolve(image.repository, image.tag))?.digest).toBe(image.digest);
    expect(
      await completeTags(
        far,
        ARTIFACTS.map((a) => REPOS[a]),
      ),
    ).toEqual({ broken: [] });
  });
});
