import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isReleaseError } from '../../src/errors.ts';
import { verifiedReferrers } from '../../src/mirror/accepted-referrers.ts';
import { collectSet } from '../../src/mirror/collect-set.ts';
import { openMirrorStore } from '../../src/mirror/open-mirror-store.ts';
import { referencesOf, sha256Digest } from '../../src/registry/digest.ts';
import { FlatLayoutStore } from '../../src/registry/flat-layout-store.ts';
import { parseManifestBytes } from '../../src/registry/oci-schema.ts';
import { registryErrorText } from '../../src/registry/registry-http.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { SIGNATURE_ARTIFACT_TYPE } from '../../src/signing/image-signature.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { type PublicSigningKey, parsePublicKey } from '../../src/signing/keys.ts';
import { parseVersionDocument } from '../../src/version-endpoint/api-version.ts';

// Generated hostile input for every parser of outside data a mirror or verify meets: the archive
// reader (index.json, manifests, entries, truncations), the manifest and index parsers, the
// referrers reader and the API version document. Each run ends in a result or a ReleaseError with
// a documented exit code (1, 2 or 3): never another error (exit 70), never an unhandled rejection,
// and memory stays bounded. fast-check prints the seed and the shrunk input of any failure.

const RUNS = { parsers: 2000, archives: 250, referrers: 300 };
const DOCUMENTED = [1, 2, 3];
let work: string;
let key: PublicSigningKey;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'hostile-input-'));
  await writeKeyPair(work, { RELEASE_SIGNING_PASSPHRASE: 'hostile-input' });
  key = parsePublicKey(readFileSync(join(work, 'release-signing.pub'), 'utf8'), 'pub');
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  rmSync(work, { recursive: true, force: true });
});

// --- generators -------------------------------------------------------------------------------

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const badDigest = fc.constantFrom(
  'sha256:../../../../tmp/escape',
  'sha256:',
  'sha512:00',
  '../index.json',
  '/etc/passwd',
  `sha256:${'0'.repeat(63)}G`,
);
const digest = fc.oneof(
  hex64.map((h) => `sha256:${h}`),
  badDigest,
);
/** A value of the wrong type for any key. */
const wrong = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.string({ maxLength: 20 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);
const mediaType = fc.constantFrom(...Object.values(MEDIA_TYPES), SIGNATURE_ARTIFACT_TYPE, 'text/plain');
const size = fc.oneof(fc.nat(4096), fc.constant(2 ** 60), fc.constant(-1), fc.constant(1.5));
const annotations = fc.dictionary(
  fc.constantFrom('org.opencontainers.image.ref.name', 'org.example.x', 'dev.service-release.restamped-from'),
  fc.oneof(fc.string({ maxLength: 30 }), digest, wrong),
);
const descriptorOf = (digests: fc.Arbitrary<string>) =>
  fc.record(
    {
      mediaType: fc.oneof(mediaType, wrong),
      digest: fc.oneof({ weight: 4, arbitrary: digests }, { weight: 1, arbitrary: wrong }),
      size: fc.oneof(size, wrong),
      artifactType: fc.oneof(fc.constantFrom(SIGNATURE_ARTIFACT_TYPE, 'application/x-evil'), wrong),
      annotations: fc.oneof(annotations, wrong),
    },
    { requiredKeys: ['digest'] },
  );
const documentOf = (digests: fc.Arbitrary<string>) =>
  fc.record(
    {
      schemaVersion: fc.oneof(fc.constant(2), wrong),
      mediaType: fc.oneof(mediaType, wrong),
      artifactType: fc.oneof(fc.constant(SIGNATURE_ARTIFACT_TYPE), wrong),
      config: fc.oneof(descriptorOf(digests), wrong),
      layers: fc.oneof(fc.array(fc.oneof(descriptorOf(digests), wrong), { maxLength: 3 }), wrong),
      manifests: fc.oneof(fc.array(fc.oneof(descriptorOf(digests), wrong), { maxLength: 3 }), wrong),
      subject: fc.oneof(descriptorOf(digests), wrong),
      annotations: fc.oneof(annotations, wrong),
    },
    { requiredKeys: [] },
  );
/** JSON text of `doc`, or of any value, sometimes cut short. */
const textOf = (doc: fc.Arbitrary<unknown>) =>
  fc
    .tuple(fc.oneof({ weight: 4, arbitrary: doc }, { weight: 1, arbitrary: wrong }), fc.option(fc.nat(200)))
    .map(([value, cut]) => {
      const text = JSON.stringify(value) ?? 'undefined';
      return cut === null ? text : text.slice(0, cut);
    });

/** Whatever it did, it did as documented: a result, or a ReleaseError with exit 1, 2 or 3. */
function documented(error: unknown): true {
  if (isReleaseError(error) && DOCUMENTED.includes(error.exitCode)) return true;
  throw new Error(`not a documented refusal: ${(error as Error)?.stack ?? String(error)}`);
}

/** How each run ended (a refusal's code, or `ok`): the generators must reach past the first check. */
const outcomes = new Map<string, number>();

async function settle(run: () => Promise<unknown>): Promise<void> {
  let outcome = 'ok';
  try {
    await run();
  } catch (error) {
    documented(error);
    outcome = (error as { code: string }).code;
  }
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
}

// --- properties -------------------------------------------------------------------------------

describe('hostile input is refused as documented', () => {
  it('the manifest and index parsers', () => {
    fc.assert(
      fc.property(textOf(documentOf(digest)), mediaType, (text, type) => {
        const bytes = Buffer.from(text);
        const parsed = parseManifestBytes(bytes, type);
        if (parsed.kind !== 'invalid') {
          const refs = referencesOf(bytes, type);
          // Every digest handed on is one a store can use as a file name safely.
          for (const d of [...refs.manifests, ...refs.blobs])
            expect(d.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        } else {
          try {
            referencesOf(bytes, type);
          } catch (error) {
            documented(error);
          }
        }
      }),
      { numRuns: RUNS.parsers },
    );
  });

  it('the API version document parser', () => {
    const versionDoc = fc.record(
      {
        version: fc.oneof(fc.string({ maxLength: 40 }), wrong),
        min_cli_version: fc.oneof(fc.string(), wrong),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(textOf(versionDoc), (text) => {
        const doc = parseVersionDocument(text);
        if (typeof doc !== 'string') expect(typeof doc.version).toBe('string');
      }),
      { numRuns: RUNS.parsers },
    );
  });

  it("a registry's error answer", () => {
    const errorDoc = fc.record(
      { errors: fc.oneof(fc.array(fc.oneof(fc.record({ code: wrong, message: wrong }), wrong)), wrong) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(textOf(errorDoc), (text) => {
        expect(registryErrorText(text).length).toBeLessThanOrEqual(200);
      }),
      { numRuns: RUNS.parsers },
    );
  });

  it('the archive reader, through collecting a release set', async () => {
    const blobs = fc.array(textOf(documentOf(digest)), { minLength: 1, maxLength: 4 });
    const archive = fc.record({
      blobs,
      // Index entries point at a generated blob (by position) or anywhere; ref names of the set.
      entries: fc.array(
        fc.record({
          at: fc.nat(3),
          hostile: fc.option(digest, { freq: 4 }),
          mediaType: fc.oneof(mediaType, wrong),
          ref: fc.oneof(
            fc.constantFrom('service-api:v1.0.0', 'service-api:v1.0.0-rc.1', 'service-api:latest'),
            wrong,
          ),
        }),
        { maxLength: 4 },
      ),
      indexShape: fc.constantFrom('index', 'null', 'number', 'huge', 'truncated'),
      extra: fc.option(
        fc.constantFrom(
          'junk/x',
          '../escape',
          '/abs',
          'blobs/sha256/../../x',
          'blobs/sha512/00',
          'oci-layout/x',
        ),
        { freq: 3 },
      ),
      cut: fc.option(fc.nat(8192), { freq: 4 }),
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(archive, async (a) => {
        const dir = join(work, `a${n++}`);
        mkdirSync(dir);
        const files: { name: string; body: Buffer }[] = [
          { name: 'oci-layout', body: Buffer.from('{"imageLayoutVersion":"1.0.0"}') },
        ];
        const digests = a.blobs.map((text) => {
          const body = Buffer.from(text);
          files.push({ name: `blobs/sha256/${sha256Digest(body).slice(7)}`, body });
          return sha256Digest(body);
        });
        const manifests = a.entries.map((e) => ({
          mediaType: e.mediaType,
          digest: e.hostile ?? digests[e.at % digests.length],
          size: 10,
          annotations: { 'org.opencontainers.image.ref.name': e.ref },
        }));
        const index =
          a.indexShape === 'null'
            ? 'null'
            : a.indexShape === 'number'
              ? '{"manifests":5}'
              : a.indexShape === 'huge'
                ? JSON.stringify({ manifests, pad: ' '.repeat(4 * 1024 * 1024) })
                : a.indexShape === 'truncated'
                  ? JSON.stringify({ manifests }).slice(0, -3)
                  : JSON.stringify({ schemaVersion: 2, manifests });
        files.push({ name: 'index.json', body: Buffer.from(index) });
        if (a.extra) files.push({ name: a.extra, body: Buffer.from('x') });
        const tar = await tarOf(files);
        const file = join(dir, 'a.tar');
        writeFileSync(file, a.cut === null ? tar : tar.subarray(0, a.cut));
        await settle(async () => {
          const opened = await openMirrorStore(`oci-archive:${file}`, 'source', {
            cwd: dir,
            env: {},
            insecure: [],
          });
          try {
            await collectSet({
              store: opened.store,
              version: 'v1.0.0',
              artifacts: [{ name: 'api', repository: 'service-api' }],
              keys: { release: key },
            });
          } finally {
            await opened.close();
          }
        });
        rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: RUNS.archives },
    );
  });

  it('the referrers reader', async () => {
    const layoutDir = join(work, 'referrers');
    const subject = `sha256:${'a'.repeat(64)}`;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        textOf(documentOf(digest)),
        fc.array(textOf(documentOf(digest)), { maxLength: 3 }),
        fc.boolean(),
        fc.constantFrom(SIGNATURE_ARTIFACT_TYPE, 'application/x-evil', 'application/vnd.cyclonedx+json'),
        async (generated, referrers, wellFormed, artifactType) => {
          // Half the runs list the generated referrers in a well-formed index, so the kinds'
          // verification reads them; the other half give the generated list itself.
          const list = wellFormed
            ? JSON.stringify({
                schemaVersion: 2,
                manifests: referrers.map((r) => ({
                  mediaType: MEDIA_TYPES.ociManifest,
                  digest: sha256Digest(Buffer.from(r)),
                  size: r.length,
                  artifactType,
                })),
              })
            : generated;
          const dir = `${layoutDir}-${n++}`;
          const layout = await FlatLayoutStore.open(dir);
          // The fallback index (`sha256-<hex>`) as generated, and generated referrer manifests.
          const bytes = Buffer.from(list);
          await layout.putBlob('service-api', sha256Digest(bytes), bytes);
          for (const r of referrers)
            await layout.putBlob('service-api', sha256Digest(Buffer.from(r)), Buffer.from(r));
          const store = await reopen(
            layout,
            dir,
            sha256Digest(bytes),
            `service-api:sha256-${'a'.repeat(64)}`,
          );
          await settle(() =>
            verifiedReferrers(store, { release: key }, { repository: 'service-api', digest: subject }),
          );
          rmSync(dir, { recursive: true, force: true });
        },
      ),
      { numRuns: RUNS.referrers },
    );
  });

  it('left no unhandled rejection, and memory bounded', () => {
    expect(unhandled).toEqual([]);
    // Refused at every layer: the tar, the index, a manifest, the set; and some runs got through.
    const seen = [...outcomes.keys()];
    for (const code of [
      'ARCHIVE_UNREADABLE',
      'ARCHIVE_ENTRY_REFUSED',
      'LAYOUT_INDEX_INVALID',
      'MANIFEST_INVALID',
      'ok',
    ])
      expect(seen, JSON.stringify(Object.fromEntries(outcomes))).toContain(code);
    // Generated sizes reach 2^60 and index.json 4 MiB: nothing was buffered beyond the limits.
    expect(process.memoryUsage().rss).toBeLessThan(1024 * 1024 * 1024);
  });
});

/** The layout with one more tag: `ref` -> `digest` as an index (what a fallback tag is). */
async function reopen(
  layout: FlatLayoutStore,
  dir: string,
  digest: string,
  ref: string,
): Promise<FlatLayoutStore> {
  await layout.flush();
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
  index.manifests.push({
    mediaType: MEDIA_TYPES.ociIndex,
    digest,
    size: 1,
    annotations: { 'org.opencontainers.image.ref.name': ref },
  });
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  return FlatLayoutStore.open(dir);
}

async function tarOf(files: { name: string; body: Buffer }[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of tar) chunks.push(chunk as Buffer);
  })();
  for (const f of files) tar.entry({ name: f.name, mtime: new Date(0) }, f.body);
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}
