/**
 * `npm run bench:mirror`: `release mirror` registry -> registry beside `skopeo copy --all` of the
 * same images (which carries no signatures, SBOMs or release sets), and the peak RSS of the mirror
 * process while it copies a set holding a 256 MB layer: it must stay flat (well under the layer),
 * because blobs go through a file, never through memory.
 *
 * Two real docker-registries on loopback. The set: api, worker and web, each a two-platform index
 * whose images and children are signed; the api's amd64 image carries the large layer.
 * Bounded: one mirror and one skopeo round (the 256 MB push dominates), about a minute.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RegistryStore } from '../src/registry/registry-store.ts';
import { signImage } from '../src/signing/image-signature.ts';
import { writeKeyPair } from '../src/signing/key-files.ts';
import { parsePrivateKey } from '../src/signing/keys.ts';
import { makeImage, makeIndex, pushIndex } from '../test/helpers/make-image.ts';
import { startRegistry } from '../test/helpers/registry.ts';
import { RELEASE_BIN } from '../test/helpers/run-release.ts';

const run = promisify(execFile);
const VERSION = 'v1.0.0';
const SMALL_VERSION = 'v0.1.0';
const LARGE = Number(process.env['MIRROR_BENCH_MB'] ?? 256) << 20;
const REPOS = ['service-api', 'service-worker', 'service-web'];
const env = { RELEASE_SIGNING_PASSPHRASE: 'bench-mirror-passphrase' };

const [source, target] = await Promise.all([startRegistry(), startRegistry()]);
const dir = mkdtempSync(join(tmpdir(), 'mirror-bench-'));
try {
  await writeKeyPair(dir, env);
  writeFileSync(
    join(dir, 'release.config.json'),
    JSON.stringify({ registry: source.host, signing: { publicKey: 'release-signing.pub' } }),
  );
  const key = parsePrivateKey(
    readFileSync(join(dir, 'release-signing.key'), 'utf8'),
    env.RELEASE_SIGNING_PASSPHRASE,
    'key',
  );
  const store = new RegistryStore({ registry: source.host, env: {} });
  const pushStarted = performance.now();
  // A small release first: the baseline RSS of a mirror process (Node, the toolkit, the set).
  for (const [version, large] of [
    [SMALL_VERSION, 1 << 20],
    [VERSION, LARGE],
  ] as const) {
    for (const repository of REPOS) {
      const big = repository === 'service-api' ? large : 1 << 20;
      const index = makeIndex([
        makeImage({ architecture: 'amd64', size: big }),
        makeImage({ architecture: 'arm64', size: 1 << 20 }),
      ]);
      const digest = await pushIndex(store, repository, index, version);
      for (const child of index.images)
        await signImage(store, key, { repository, digest: child.descriptor.digest });
      await signImage(store, key, { repository, digest });
    }
  }
  console.error(
    `pushed and signed two sets (${LARGE >> 20} MB layer) in ${Math.round(performance.now() - pushStarted)} ms`,
  );

  const mirrorOf = (version: string) =>
    measured(process.execPath, ['--', RELEASE_BIN, 'mirror', '--version', version, '--to', target.host], dir);
  const baseline = await mirrorOf(SMALL_VERSION);
  const mirror = await mirrorOf(VERSION);
  for (const m of [baseline, mirror]) if (m.code !== 0) throw new Error(`release mirror failed: ${m.stderr}`);

  const skopeoStarted = performance.now();
  for (const repository of REPOS) {
    await run(
      'skopeo',
      [
        'copy',
        '--all',
        '--src-tls-verify=false',
        '--dest-tls-verify=false',
        `docker://${source.host}/${repository}:${VERSION}`,
        `docker://${target.host}/skopeo/${repository}:${VERSION}`,
      ],
      { maxBuffer: 1 << 24 },
    );
  }
  const skopeoMs = Math.round(performance.now() - skopeoStarted);

  console.log('| tool | what it copies | wall time | peak RSS |');
  console.log('|---|---|---|---|');
  console.log(
    `| release mirror | 3 images x 2 platforms, signatures, rc and evidence when present, verified first | ${mirror.ms} ms | ${mirror.peakRssMb} MB |`,
  );
  console.log(`| skopeo copy --all (x3) | 3 images x 2 platforms, no referrers | ${skopeoMs} ms | n/a |`);
  console.log(
    `| release mirror, 1 MB layers (baseline) | the same set | ${baseline.ms} ms | ${baseline.peakRssMb} MB |`,
  );
  // Flat: the large layer adds far less than its own size to the process (64 MB of slack).
  const growth = mirror.peakRssMb - baseline.peakRssMb;
  const flat = growth < 64;
  console.log(
    `\npeak RSS ${mirror.peakRssMb} MB with a ${LARGE >> 20} MB layer, ${baseline.peakRssMb} MB without: +${growth} MB, ${flat ? 'flat' : 'NOT flat'}`,
  );
  if (!flat) process.exitCode = 1;
} finally {
  await Promise.all([source.stop(), target.stop()]);
  rmSync(dir, { recursive: true, force: true });
}

/** Run a process, sampling its resident set every 20 ms from /proc (Linux). */
function measured(command: string, args: string[], cwd: string) {
  return new Promise<{ code: number | null; ms: number; peakRssMb: number; stderr: string }>((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let peak = 0;
    child.stderr.on('data', (d) => (stderr += d));
    const sample = setInterval(() => {
      try {
        const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        if (kb) peak = Math.max(peak, Number(kb));
      } catch {
        // the process has ended
      }
    }, 20);
    child.on('close', (code) => {
      clearInterval(sample);
      resolve({
        code,
        ms: Math.round(performance.now() - started),
        peakRssMb: Math.round(peak / 1024),
        stderr,
      });
    });
  });
}
