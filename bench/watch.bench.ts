// npm run bench:watch — `release watch --all` over 200 simulated deployments for 100 rounds.
//
// What is simulated, honestly: the same fleet as bench/verify (its `--serve` mode): each
// deployment is the real reference API server (serving a real Vite build of the web client on its
// own origin) plus the real reference worker health server, 400 node:http servers on loopback in
// ONE child process. One in 50 workers is behind, so some deployments drift. The watcher is the
// real `release watch` (compiled bin, a subprocess) at a short interval; this process scrapes its
// /metrics after every round, as Prometheus would, and reads /status.json every tenth round.
//
// Reported: round time (the watch's own service_release_round_duration_seconds, every round:
// median, p95, max) against the 2 s target; the watch process's RSS (/proc/<pid>/status) every
// round after a 10-round warm-up: by quarter, and the peak of the second half against the peak of
// the first ("flat": within 5%), with the least-squares slope over the second half.
//
// RSS alone cannot tell a leak from V8 growing its heap to the size it settles at, so the same
// rounds also run in this process (runRound, the metrics, the status document: the watch's work
// without its HTTP server), with a full GC (--expose-gc) before reading the live heap each round.
// "No leak" means the live heap after GC does not grow from the warm-up to the last round.
//
// Env: BENCH_DEPLOYMENTS (200), BENCH_WATCH_ROUNDS (100), BENCH_WATCH_INTERVAL (300ms).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from '../src/service/web/build/build-web.ts';
import { FlapGuard } from '../src/watch/flap-guard.ts';
import { WatchMetrics } from '../src/watch/metrics.ts';
import { runRound } from '../src/watch/round.ts';
import { statusDocument } from '../src/watch/status-json.ts';
import { type StartedProcess, startProcess } from '../test/helpers/start-process.ts';
import { median, positiveEnv } from './support.ts';

const COUNT = positiveEnv('BENCH_DEPLOYMENTS', 200);
const ROUNDS = positiveEnv('BENCH_WATCH_ROUNDS', 100);
const INTERVAL = process.env['BENCH_WATCH_INTERVAL'] ?? '300ms';
const WARM_UP = Math.min(10, Math.floor(ROUNDS / 2));
const TARGET_MS = 2_000;
const RELEASE_BIN = fileURLToPath(new URL('../bin/release.js', import.meta.url));
const TSX = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));
const VERIFY_BENCH = fileURLToPath(new URL('./verify.bench.ts', import.meta.url));

interface Sample {
  round: number;
  roundMs: number;
  rssKiB: number;
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'sr-bench-watch-'));
  const children: StartedProcess[] = [];
  try {
    const webRoot = join(scratch, 'web');
    await buildWeb({ version: 'v3.2.1', outDir: webRoot });
    const fleet = await startProcess(TSX, {
      args: [VERIFY_BENCH, '--serve', webRoot, '0'],
      env: { BENCH_DEPLOYMENTS: String(COUNT) },
      readyPattern: /^deployments (?<url>\[.*\])$/m,
      timeoutMs: 120_000,
    });
    children.push(fleet);
    writeFileSync(
      join(scratch, 'release.config.json'),
      JSON.stringify({ deployments: JSON.parse(fleet.url) }),
    );
    const watch = await startProcess(RELEASE_BIN, {
      args: ['watch', '--all', '--listen', '127.0.0.1:0', '--interval', INTERVAL],
      cwd: scratch,
      readyPattern: /serving (http:\/\/\S+)/,
    });
    children.push(watch);

    const samples: Sample[] = [];
    let seen = 0;
    let scrapeBytes = 0;
    const deadline = Date.now() + ROUNDS * 10_000;
    while (seen < ROUNDS && Date.now() < deadline) {
      const text = await (await fetch(`${watch.url}/metrics`)).text();
      const rounds = sum(text, /^service_release_rounds_total\{[^}]*\} (\S+)$/gm);
      if (rounds > seen) {
        seen = rounds;
        scrapeBytes = text.length;
        samples.push({
          round: rounds,
          roundMs: sum(text, /^service_release_round_duration_seconds (\S+)$/gm) * 1000,
          rssKiB: rssOf(watch.proc.pid!),
        });
        if (rounds % 10 === 0) await (await fetch(`${watch.url}/status.json`)).text();
      }
      await new Promise((r) => setTimeout(r, 40));
    }
    if (seen < ROUNDS) throw new Error(`only ${seen} of ${ROUNDS} rounds within the deadline`);
    const final = await (await fetch(`${watch.url}/metrics`)).text();
    await watch.stop();
    const live = await liveHeapRounds(JSON.parse(fleet.url), scratch);
    const inStep = sum(final, /^service_release_in_step\{[^}]*\} (\S+)$/gm);

    const times = samples.map((s) => s.roundMs);
    const sorted = [...times].sort((a, b) => a - b);
    const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
    const warm = samples.filter((s) => s.round > WARM_UP);
    const first = warm[0]!;
    const last = warm[warm.length - 1]!;
    const half = Math.floor(warm.length / 2);
    const [earlier, later] = [warm.slice(0, half), warm.slice(half)];
    const slope = slopeOf(later.map((s) => [s.round, s.rssKiB]));
    const growth = last.rssKiB / first.rssKiB;
    const peak = (list: Sample[]) => Math.max(...list.map((s) => s.rssKiB));
    const quarter = (q: number) => warm[Math.min(warm.length - 1, Math.floor((warm.length * q) / 4))]!;

    console.log(
      `release watch --all: ${COUNT} deployments (${COUNT * 2} loopback servers in one process), ${ROUNDS} rounds at --interval ${INTERVAL}`,
    );
    console.log(`  in step at the end: ${inStep} of ${COUNT} (one worker in 50 is behind)`);
    console.log(`  /metrics scrape: ${(scrapeBytes / 1024).toFixed(1)} KiB; series: ${seriesCounts(final)}`);
    console.log(
      `  round time: median ${fmt(median(times))}, p95 ${fmt(p95)}, max ${fmt(sorted[sorted.length - 1]!)} (${samples.length} rounds sampled)`,
    );
    console.log(
      `  RSS: ${[0, 1, 2, 3].map((q) => `${mib(quarter(q).rssKiB)} @${quarter(q).round}`).join(', ')}, ${mib(last.rssKiB)} @${last.round}: last/first x${growth.toFixed(3)}`,
    );
    console.log(
      `  RSS peak: rounds ${earlier[0]!.round}-${earlier[earlier.length - 1]!.round} ${mib(peak(earlier))}, rounds ${later[0]!.round}-${last.round} ${mib(peak(later))} (x${(peak(later) / peak(earlier)).toFixed(3)}); slope over the second half ${slope.toFixed(1)} KiB/round`,
    );
    // Flat: the second half never climbs more than 5% above the first half's peak (GC makes RSS
    // saw-tooth, so a peak-to-peak comparison says more than two single readings).
    const flat = peak(later) <= peak(earlier) * 1.05;
    const [h0, h1] = [live[WARM_UP]!, live[live.length - 1]!];
    const heapSlope = slopeOf(live.slice(WARM_UP).map((kib, i) => [i, kib]));
    const noLeak = h1 <= h0 * 1.05;
    console.log(
      `  live heap after a full GC (same rounds in process): ${mib(h0)} after round ${WARM_UP + 1}, ${mib(h1)} after round ${live.length}: x${(h1 / h0).toFixed(3)}; slope ${heapSlope.toFixed(1)} KiB/round`,
    );
    console.log(
      `target: round <= ${TARGET_MS} ms: ${sorted[sorted.length - 1]! <= TARGET_MS ? 'met' : p95 <= TARGET_MS ? 'met at p95, max MISSED' : 'MISSED'}; RSS flat (second-half peak within 5% of the first's): ${flat ? 'met' : 'MISSED'}; live heap flat (within 5%): ${noLeak ? 'met' : 'MISSED'}`,
    );
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Run the rounds in this process, reading the live heap after a full GC after each one (KiB). */
async function liveHeapRounds(targets: { name: string; url: string }[], cwd: string): Promise<number[]> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc (npm run bench:watch does)');
  const guard = new FlapGuard();
  const metrics = new WatchMetrics();
  const options = {
    env: {},
    cwd,
    timeoutMs: 5_000,
    cli: false,
    images: { api: 'service-api', worker: 'service-worker', web: 'service-web' },
    concurrency: 16,
    targetTimeoutMs: 15_000,
    roundTimeoutMs: 15_000,
  };
  const heap: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const result = await runRound(targets, options, guard);
    metrics.update(result);
    await metrics.metrics();
    JSON.stringify(statusDocument(result, 300));
    gc();
    heap.push(process.memoryUsage().heapUsed / 1024);
  }
  return heap;
}

/** The sum of every value a metric regex captures (counters are split by label). */
function sum(text: string, pattern: RegExp): number {
  let total = 0;
  for (const m of text.matchAll(pattern)) total += Number(m[1]);
  return total;
}

/** Series per metric name (`artifact_info 800, ...`): what a scrape is made of, to see it bounded. */
function seriesCounts(text: string): string {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const name = /^service_release_(\w+?)(?:\{| )/.exec(line)?.[1];
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${name} ${n}`).join(', ');
}

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line?.[1] ?? Number.NaN);
}

/** Least-squares slope of y over x. */
function slopeOf(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

await main();
