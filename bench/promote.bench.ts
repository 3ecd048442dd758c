/**
 * `npm run bench:promote`: what a release promotion costs against a real registry, for a 1 MB and
 * a 256 MB image, next to `skopeo copy` doing the same retag (rc -> vX.Y.Z and latest).
 *
 * Both go through one counting proxy in front of a `docker-registry` with htpasswd auth, so they
 * are counted and slowed alike. Targets: <= 2 requests per tag plus auth, time independent of
 * image size, <= 0.5x skopeo. Ours is timed in process (read, plan, write); skopeo includes its
 * process start, which is part of what a CI job using it pays. Bounded: 5 rounds per size, and the
 * whole run stops after 150 s.
 *
 * A full release from an rc re-stamps the image (new config and version layer over the
 * rc's code layers). The "release re-stamp" rows measure that whole path for one artifact (read
 * the rc manifest, config and small version layer, push the two new blobs and the manifest, plan,
 * write vX.Y.Z and latest): its requests per artifact must not grow with the code layer's size.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { orderedWrites, planPromotion } from '../src/channels/promotion-plan.ts';
import { createLayer, type Layer } from '../src/oci-image/layer.ts';
import { VERSION_LAYER_DIGEST_LABEL, VERSION_LAYER_FILES_LABEL } from '../src/oci-image/version-layer.ts';
import { applyPromotion, readStoreState } from '../src/registry/apply-promotion.ts';
import { sha256Digest } from '../src/registry/digest.ts';
import { RegistryStore } from '../src/registry/registry-store.ts';
import { MEDIA_TYPES } from '../src/registry/store.ts';
import { pushRestamped, restampImage } from '../src/restamp/restamp-image.ts';
import { makeImage, pushImage } from '../test/helpers/make-image.ts';
import { startRegistry } from '../test/helpers/registry.ts';
import { startProxy } from '../test/registry/proxy.ts';
import { median } from './support.ts';

const run = promisify(execFile);
const ROUNDS = 5;
const DEADLINE = Date.now() + 150_000;
const user = 'bench';
const password = `pw-${randomBytes(8).toString('hex')}`;

const registry = await startRegistry({ htpasswd: { user, password } });
const proxy = await startProxy(registry.host);
const configDir = mkdtempSync(join(tmpdir(), 'sr-bench-'));
const auth = Buffer.from(`${user}:${password}`).toString('base64');
writeFileSync(
  join(configDir, 'config.json'),
  JSON.stringify({ auths: { [proxy.host]: { auth }, [registry.host]: { auth } } }),
);
const env = { DOCKER_CONFIG: configDir };

interface Row {
  size: string;
  tool: string;
  ms: number;
  requests: number;
  auth: number;
  /** Manifest GETs and PUTs: the copy itself, as opposed to the plan's reads (tag list, HEADs). */
  copy: number;
  tags: number;
}
const rows: Row[] = [];

try {
  const direct = new RegistryStore({ registry: registry.host, env });
  for (const [label, bytes] of [
    ['1 MB', 1 << 20],
    ['256 MB', 256 << 20],
  ] as const) {
    const repo = `bench-${label.replace(' ', '').toLowerCase()}`;
    const pushStarted = performance.now();
    await pushOnce(direct, repo, bytes);
    const old = makeImage({ size: 1024 });
    await pushImage(direct, repo, old, 'v0.9.0');
    await pushImage(direct, `${repo}-restamp`, old, 'v0.9.0');
    console.error(`pushed ${label} twice in ${Math.round(performance.now() - pushStarted)} ms`);

    // Round 0 warms up connections and the registry's caches and is not counted.
    for (let round = 0; round <= ROUNDS && Date.now() < DEADLINE; round++) {
      // Untimed: put latest back on the old image, so every round moves it (two tags written).
      await direct.putManifest(repo, 'latest', old.manifest, old.descriptor.mediaType);
      const version = `v1.0.${round}`;

      proxy.failNth(undefined);
      let started = performance.now();
      const store = new RegistryStore({ registry: proxy.host, env });
      const intent = { version, channel: 'release' as const };
      const state = await readStoreState(store, intent, [
        { artifact: 'api', repository: repo, reference: 'v1.0.0-rc.1' },
      ]);
      const plan = planPromotion({ ...intent, artifacts: state.states });
      await applyPromotion(store, plan, state.manifests);
      if (round > 0) rows.push(measure(label, 'release promote', started, orderedWrites(plan).length));

      proxy.failNth(undefined);
      started = performance.now();
      for (const tag of [version, 'latest']) {
        await run(
          'skopeo',
          [
            'copy',
            '--quiet',
            '--src-tls-verify=false',
            '--dest-tls-verify=false',
            '--src-creds',
            `${user}:${password}`,
            '--dest-creds',
            `${user}:${password}`,
            `docker://${proxy.host}/${repo}-skopeo:v1.0.0-rc.1`,
            `docker://${proxy.host}/${repo}-skopeo:${tag}`,
          ],
          { timeout: 120_000 },
        );
      }
      if (round > 0) rows.push(measure(label, 'skopeo copy', started, 2));

      // The release from the rc, re-stamped: one artifact, two tags.
      await direct.putManifest(`${repo}-restamp`, 'latest', old.manifest, old.descriptor.mediaType);
      proxy.failNth(undefined);
      started = performance.now();
      const rc = (await store.getManifest(`${repo}-restamp`, 'v1.0.0-rc.1'))!;
      const restamped = await restampImage(store, `${repo}-restamp`, rc, version);
      await pushRestamped(store, `${repo}-restamp`, restamped);
      const restampState = await readStoreState(store, intent, [
        { artifact: 'api', repository: `${repo}-restamp`, reference: restamped.manifest.descriptor.digest },
      ]);
      const restampPlan = planPromotion({ ...intent, artifacts: restampState.states });
      await applyPromotion(store, restampPlan, restampState.manifests);
      if (round > 0)
        rows.push(measure(label, 'release re-stamp', started, orderedWrites(restampPlan).length));
    }
  }
} finally {
  await proxy.stop();
  await registry.stop();
  rmSync(configDir, { recursive: true, force: true });
}

/** Push the big image to both repositories; the bytes go out of scope before anything is timed. */
async function pushOnce(store: RegistryStore, repo: string, bytes: number): Promise<void> {
  const image = makeImage({ size: bytes });
  await pushImage(store, repo, image, 'v1.0.0-rc.1');
  await pushImage(store, `${repo}-skopeo`, image, 'v1.0.0-rc.1');
  await pushRcWithVersionLayer(store, `${repo}-restamp`, image.blobs[1]!);
}

/**
 * An rc as the oci engine builds one: the big code layer (never read by the re-stamp), then a
 * small version layer with version.json, a config with the version env, label and the two
 * version-layer labels.
 */
async function pushRcWithVersionLayer(
  store: RegistryStore,
  repo: string,
  code: { digest: string; bytes: Uint8Array },
): Promise<void> {
  const version: Layer = await createLayer(
    [{ type: 'file', path: '/app/web/version.json', content: '{"version":"v1.0.0-rc.1"}\n' }],
    0,
  );
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: {
        Env: ['SERVICE_CLIENT_VERSION=v1.0.0-rc.1'],
        Labels: {
          'org.opencontainers.image.version': 'v1.0.0-rc.1',
          [VERSION_LAYER_FILES_LABEL]: '/app/web/version.json',
          [VERSION_LAYER_DIGEST_LABEL]: version.digest,
        },
      },
      rootfs: { type: 'layers', diff_ids: [code.digest, version.diffId] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociManifest,
      config: { mediaType: MEDIA_TYPES.ociConfig, digest: sha256Digest(config), size: config.length },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: code.digest, size: code.bytes.length },
        { mediaType: MEDIA_TYPES.ociLayerGzip, digest: version.digest, size: version.size },
      ],
    }),
  );
  for (const blob of [
    code,
    { digest: version.digest, bytes: version.bytes },
    { digest: sha256Digest(config), bytes: config },
  ])
    await store.putBlob(repo, blob.digest, blob.bytes);
  await store.putManifest(repo, 'v1.0.0-rc.1', manifest, MEDIA_TYPES.ociManifest);
}

function measure(size: string, tool: string, started: number, tags: number): Row {
  const auth = proxy.statuses.filter((s) => s === 401).length;
  const ok = proxy.log.filter((_, i) => proxy.statuses[i] !== 401);
  const copy = ok.filter((l) => /^(GET|PUT) \/v2\/.*\/manifests\//.test(l)).length;
  return { size, tool, ms: performance.now() - started, requests: proxy.log.length, auth, copy, tags };
}

const summary = new Map<
  string,
  { ms: number; perTag: number; copyPerTag: number; authPerRun: number; rounds: number }
>();
for (const key of new Set(rows.map((r) => `${r.size}|${r.tool}`))) {
  const mine = rows.filter((r) => `${r.size}|${r.tool}` === key);
  summary.set(key, {
    ms: median(mine.map((r) => r.ms)),
    perTag: median(mine.map((r) => (r.requests - r.auth) / r.tags)),
    copyPerTag: median(mine.map((r) => r.copy / r.tags)),
    authPerRun: median(mine.map((r) => r.auth)),
    rounds: mine.length,
  });
}
console.log(
  'size    tool             median ms  requests/tag (excl. auth)  of which manifest copy  auth round trips/run  rounds',
);
for (const [key, s] of summary) {
  const [size, tool] = key.split('|');
  console.log(
    `${size!.padEnd(7)} ${tool!.padEnd(16)} ${s.ms.toFixed(0).padStart(9)}  ${s.perTag.toFixed(1).padStart(25)}  ${s.copyPerTag.toFixed(1).padStart(22)}  ${String(s.authPerRun).padStart(20)}  ${String(s.rounds).padStart(6)}`,
  );
}
const get = (size: string, tool: string) => summary.get(`${size}|${tool}`);
for (const size of ['1 MB', '256 MB']) {
  const ours = get(size, 'release promote');
  const theirs = get(size, 'skopeo copy');
  if (ours && theirs)
    console.log(`${size}: promote / skopeo time = ${(ours.ms / theirs.ms).toFixed(2)} (target <= 0.5)`);
}
const small = get('1 MB', 'release promote');
const large = get('256 MB', 'release promote');
const restampSmall = get('1 MB', 'release re-stamp');
const restampLarge = get('256 MB', 'release re-stamp');
if (restampSmall && restampLarge) {
  const perArtifact = (s: { perTag: number }) => s.perTag * 2;
  console.log(
    `release from an rc, re-stamped: ${perArtifact(restampSmall).toFixed(0)} requests per artifact (1 MB), ` +
      `${perArtifact(restampLarge).toFixed(0)} (256 MB), excluding auth; time 256 MB / 1 MB = ${(restampLarge.ms / restampSmall.ms).toFixed(2)} (target: independent of size)`,
  );
}
if (small && large) {
  console.log(
    `promote time 256 MB / 1 MB = ${(large.ms / small.ms).toFixed(2)} (target: independent of size, ~1)`,
  );
  console.log(
    `promote requests per tag: ${small.perTag.toFixed(1)} (1 MB), ${large.perTag.toFixed(1)} (256 MB) in all; ` +
      `${small.copyPerTag.toFixed(1)} for the manifest copy (target <= 2 plus auth)`,
  );
}
