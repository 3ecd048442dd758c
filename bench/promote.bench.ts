/**
 * `npm run bench:promote`: what a release promotion costs against a real registry, for a 1 MB and
 * a 256 MB image, next to `skopeo copy` doing the same retag (rc -> vX.Y.Z and latest).
 *
 * Both go through one counting proxy in front of a `docker-registry` with htpasswd auth, so they
 * are counted and slowed alike. Targets: <= 2 requests per tag plus auth, time independent of
 * image size, <= 0.5x skopeo. Ours is timed in process (read, plan, write); skopeo includes its
 * process start, which is part of what a CI job using it pays. Bounded: 5 rounds per size, and the
 * whole run stops after 150 s.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { orderedWrites, planPromotion } from '../src/channels/promotion-plan.ts';
import { applyPromotion, readStoreState } from '../src/registry/apply-promotion.ts';
import { RegistryStore } from '../src/registry/registry-store.ts';
import { makeImage, pushImage } from '../test/helpers/make-image.ts';
import { startRegistry } from '../test/helpers/registry.ts';
import { startProxy } from '../test/registry/proxy.ts';

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
}

function measure(size: string, tool: string, started: number, tags: number): Row {
  const auth = proxy.statuses.filter((s) => s === 401).length;
  const ok = proxy.log.filter((_, i) => proxy.statuses[i] !== 401);
  const copy = ok.filter((l) => /^(GET|PUT) \/v2\/.*\/manifests\//.test(l)).length;
  return { size, tool, ms: performance.now() - started, requests: proxy.log.length, auth, copy, tags };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
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
if (small && large) {
  console.log(
    `promote time 256 MB / 1 MB = ${(large.ms / small.ms).toFixed(2)} (target: independent of size, ~1)`,
  );
  console.log(
    `promote requests per tag: ${small.perTag.toFixed(1)} (1 MB), ${large.perTag.toFixed(1)} (256 MB) in all; ` +
      `${small.copyPerTag.toFixed(1)} for the manifest copy (target <= 2 plus auth)`,
  );
}
