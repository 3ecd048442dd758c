import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Digest } from '../../src/registry/digest.ts';
import { FlatLayoutStore } from '../../src/registry/flat-layout-store.ts';
import { packArchive, unpackArchive } from '../../src/registry/oci-archive.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { attachArtifact, listReferrers, updateFallbackIndex } from '../../src/registry/referrers.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { SIGNATURE_ARTIFACT_TYPE } from '../../src/signing/image-signature.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { pushRelease, REPOS, recordDigests, stampedProject } from '../promote/project.ts';

// A signed rc in an OCI layout is mirrored to an archive; each test unpacks it, makes it hostile
// the way an attacker with the archive in hand would, packs it again and loads it into a fresh
// layout. Every refusal is a documented exit code (never 70) and leaves the target unwritten;
// what the key does not vouch for is left behind, never carried into the target.

const RC = 'v1.0.0-rc.1';
const env = { RELEASE_SIGNING_PASSPHRASE: 'hostile-archives' };
let repo: GitRepo;
let work: string;
const good = () => join(work, 'good.tar');
const release = (args: string[]) => runRelease(args, { cwd: repo.dir, env, timeoutMs: 60_000 });

interface Loaded {
  code: number;
  error?: { code: string; message: string };
  warnings: string[];
  target: string;
  stdout: string;
}

/** Load `file` into a fresh layout with --json; the error or the warnings, and where it went. */
async function load(file: string, ...flags: string[]): Promise<Loaded> {
  const target = join(work, `target-${readdirSync(work).length}`);
  const run = await release(
    ['mirror', '--version', RC, '--from', `oci-archive:${file}`].concat([
      '--to',
      `oci-layout:${target}`,
      '--json',
      ...flags,
    ]),
  );
  const out = jsonOf<{ error?: Loaded['error']; warnings?: string[] }>(run);
  return {
    code: run.code,
    warnings: out.warnings ?? [],
    target,
    stdout: run.stdout,
    ...(out.error ? { error: out.error } : {}),
  };
}

/** Unpack the good archive, let `edit` change the layout directory, pack it as `<name>.tar`. */
async function edited(name: string, edit: (dir: string) => Promise<void> | void): Promise<string> {
  const dir = join(work, `${name}-layout`);
  await unpackArchive(good(), dir);
  await edit(dir);
  const file = join(work, `${name}.tar`);
  await packArchive(dir, file);
  return file;
}

const indexOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
const writeIndex = (dir: string, value: unknown) =>
  writeFileSync(join(dir, 'index.json'), typeof value === 'string' ? value : JSON.stringify(value));
const ownTempDirs = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`release-mirror-${process.pid}-`));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'hostile-archives-'));
  repo = await stampedProject(RC, {
    registry: 'oci-layout:.release/oci',
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  await writeKeyPair(repo.dir, env);
  const store = openStore('oci-layout:.release/oci', { cwd: repo.dir, env: {} });
  recordDigests(repo, await pushRelease(store, []), RC);
  const rc = await release(['promote', '--channel', 'rc']);
  expect(rc.code, rc.stderr).toBe(0);
  const made = await release(['mirror', '--version', RC, '--to', `oci-archive:${good()}`]);
  expect(made.code, made.stderr).toBe(0);
}, 120_000);

afterAll(() => {
  repo?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a malformed archive is refused with exit 1, never a crash', { timeout: 60_000 }, () => {
  it('the good archive loads (the fixture is sound)', async () => {
    const loaded = await load(good());
    expect(loaded.code, loaded.stdout).toBe(0);
    expect(loaded.warnings).toEqual([]);
  });

  const api = (dir: string) =>
    (indexOf(dir).manifests as { annotations: Record<string, string> }[]).find(
      (m) => m.annotations['org.opencontainers.image.ref.name'] === `${REPOS.api}:${RC}`,
    )!;
  const layoutVersion = (text: string) => (dir: string) => writeFileSync(join(dir, 'oci-layout'), text);
  const forms: [string, (dir: string) => void, string][] = [
    ['imageLayoutVersion 7', layoutVersion('{"imageLayoutVersion": 7}'), 'LAYOUT_VERSION_UNKNOWN'],
    [
      'imageLayoutVersion "2.0.0"',
      layoutVersion('{"imageLayoutVersion": "2.0.0"}'),
      'LAYOUT_VERSION_UNKNOWN',
    ],
    ['oci-layout without a version', layoutVersion('{}'), 'LAYOUT_VERSION_UNKNOWN'],
    ['oci-layout that is not JSON', layoutVersion('1.0.0'), 'LAYOUT_VERSION_UNKNOWN'],
    ['index.json is null', (dir) => writeIndex(dir, 'null'), 'LAYOUT_INDEX_INVALID'],
    ['manifests is a number', (dir) => writeIndex(dir, { manifests: 5 }), 'LAYOUT_INDEX_INVALID'],
    ['manifests holds null', (dir) => writeIndex(dir, { manifests: [null] }), 'LAYOUT_INDEX_INVALID'],
    [
      'a ref name that is a number',
      (dir) => {
        const index = indexOf(dir);
        index.manifests[0].annotations['org.opencontainers.image.ref.name'] = 5;
        writeIndex(dir, index);
      },
      'LAYOUT_INDEX_INVALID',
    ],
    [
      'a ref name that is an object',
      (dir) => {
        const index = indexOf(dir);
        index.manifests[0].annotations['org.opencontainers.image.ref.name'] = { ref: 'x' };
        writeIndex(dir, index);
      },
      'LAYOUT_INDEX_INVALID',
    ],
    [
      'a tag pointing at a blob that is not JSON, with its right digest',
      (dir) => {
        const bytes = Buffer.from('not json at all');
        writeFileSync(join(dir, 'blobs', 'sha256', sha256Digest(bytes).slice(7)), bytes);
        const index = indexOf(dir);
        const entry = index.manifests.find(
          (m: { annotations: Record<string, string> }) =>
            m.annotations['org.opencontainers.image.ref.name'] ===
            api(dir).annotations['org.opencontainers.image.ref.name'],
        );
        Object.assign(entry, { digest: sha256Digest(bytes), size: bytes.length });
        writeIndex(dir, index);
      },
      'MANIFEST_INVALID',
    ],
  ];
  for (const [name, edit, code] of forms)
    it(name, async () => {
      const loaded = await load(await edited(name.replace(/\W+/g, '-'), edit));
      expect(loaded.code, loaded.stdout).toBe(1);
      expect(loaded.error?.code).toBe(code);
      expect(existsSync(loaded.target)).toBe(false);
    });
});

describe('a mirror carries only what it verified', { timeout: 60_000 }, () => {
  it('an unsigned extra referrer is left behind with a notice, or refused with --strict-referrers', async () => {
    let evil = '';
    let subject = '';
    const file = await edited('extra-referrer', async (dir) => {
      const layout = await FlatLayoutStore.open(dir);
      const descriptor = (await layout.resolve(REPOS.api, RC))!;
      subject = descriptor.digest;
      const attached = await attachArtifact(layout, REPOS.api, descriptor, {
        artifactType: 'application/vnd.example.anything+json',
        layer: { mediaType: 'application/octet-stream', bytes: Buffer.from('rides along?') },
      });
      evil = attached.digest;
      await layout.flush();
    });
    const loaded = await load(file);
    expect(loaded.code, loaded.stdout).toBe(0);
    expect(loaded.warnings.join('\n')).toContain(`not carried: ${REPOS.api}@${evil}`);
    const target = openStore(`oci-layout:${loaded.target}`, { cwd: work, env: {} });
    const carried = (await listReferrers(target, REPOS.api, subject)).map((d) => d.digest);
    expect(carried.length).toBeGreaterThan(0); // its signature
    expect(carried).not.toContain(evil);
    expect(await target.resolve(REPOS.api, evil)).toBeUndefined();
    expect(await target.hasBlob(REPOS.api, sha256Digest(Buffer.from('rides along?')))).toBe(false);

    const strict = await load(file, '--strict-referrers');
    expect(strict.code, strict.stdout).toBe(1);
    expect(strict.error?.code).toBe('MIRROR_REFERRER_REFUSED');
    expect(existsSync(strict.target)).toBe(false);
  });

  it('a referrer whose layer digest is a path is refused before the first write', async () => {
    const file = await edited('path-digest', async (dir) => {
      const layout = await FlatLayoutStore.open(dir);
      const subject = (await layout.resolve(REPOS.worker, RC))!;
      const bytes = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: MEDIA_TYPES.ociManifest,
          artifactType: SIGNATURE_ARTIFACT_TYPE,
          config: { mediaType: MEDIA_TYPES.ociEmpty, digest: sha256Digest(Buffer.from('{}')), size: 2 },
          layers: [{ mediaType: SIGNATURE_ARTIFACT_TYPE, digest: 'sha256:../../../../tmp/escape', size: 1 }],
          subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
        }),
      );
      await layout.putBlob(REPOS.worker, sha256Digest(bytes), bytes);
      await updateFallbackIndex(layout, REPOS.worker, subject.digest, {
        add: [
          {
            mediaType: MEDIA_TYPES.ociManifest,
            digest: sha256Digest(bytes),
            size: bytes.length,
            artifactType: SIGNATURE_ARTIFACT_TYPE,
          },
        ],
      });
      await layout.flush();
    });
    const loaded = await load(file);
    expect(loaded.code, loaded.stdout).toBe(1);
    expect(loaded.error?.code).toBe('MANIFEST_INVALID');
    expect(loaded.error?.message).toContain('is not a sha256 digest');
    expect(existsSync(loaded.target)).toBe(false);
  });
});

describe('nothing outside the layout is unpacked', { timeout: 60_000 }, () => {
  /** The good archive's entries, then `extra` entries appended (a tar made by hand). */
  async function withExtra(name: string, extra: { name: string; body: string }[]): Promise<string> {
    const dir = join(work, `${name}-layout`);
    await unpackArchive(good(), dir);
    const tar = pack();
    const chunks: Buffer[] = [];
    const done = (async () => {
      for await (const chunk of tar) chunks.push(chunk as Buffer);
    })();
    for (const file of [
      'oci-layout',
      'index.json',
      ...readdirSync(join(dir, 'blobs', 'sha256')).map((b) => `blobs/sha256/${b}`),
    ])
      tar.entry({ name: file }, readFileSync(join(dir, file)));
    for (const entry of extra) tar.entry({ name: entry.name }, entry.body);
    tar.finalize();
    await done;
    const file = join(work, `${name}.tar`);
    writeFileSync(file, Buffer.concat(chunks));
    return file;
  }

  it('10,000 junk entries: refused at the first, nothing of them on disk', async () => {
    const junk = Array.from({ length: 10_000 }, (_, i) => ({ name: `junk/${i}`, body: 'x' }));
    const file = await withExtra('junk', junk);
    const started = Date.now();
    const loaded = await load(file);
    expect(loaded.code, loaded.stdout).toBe(1);
    expect(loaded.error).toMatchObject({ code: 'ARCHIVE_ENTRY_REFUSED' });
    expect(loaded.error?.message).toContain('"junk/0" is not part of an OCI layout');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(existsSync(loaded.target)).toBe(false);
    expect(ownTempDirs()).toEqual([]);
  });

  it('an entry that climbs out, and an all-zero tar', async () => {
    const climbing = await load(await withExtra('climb', [{ name: 'blobs/../../escape', body: 'x' }]));
    expect(climbing.code).toBe(1);
    expect(climbing.error?.code).toBe('ARCHIVE_ENTRY_REFUSED');
    expect(existsSync(join(work, 'escape'))).toBe(false);
    const zeros = join(work, 'zeros.tar');
    writeFileSync(zeros, Buffer.alloc(10 * 1024));
    const loaded = await load(zeros);
    expect(loaded.code, loaded.stdout).toBe(1);
    expect(loaded.error?.code).toBe('ARCHIVE_NOT_A_LAYOUT');
    expect(loaded.error?.message).toContain('is not an OCI layout');
    expect(ownTempDirs()).toEqual([]);
  });
});
