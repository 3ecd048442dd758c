// npm run bench:verify — `release verify --all` over 200 simulated deployments on loopback.
//
// What is simulated, honestly: each deployment is the real reference API server (createApiServer,
// serving a real Vite build of the web client on its own origin, as SERVICE_WEB_ROOT does) plus the
// real reference worker health server (createHealthServer): 400 node:http servers on ephemeral
// loopback ports, all in ONE child process (not 200 machines, and not 400 processes). Each check
// makes three requests (/api/version, /version.json, /healthz). The verifier runs in this process
// (verifyFleet, the code behind --all); the svc probe is left out (--no-cli), as it is one local
// exec per run whatever the fleet size.
//
// Reported: wall time of the concurrent check (default concurrency 16, the CLI default; also 64),
// against the same 200 checked one after another; the median of BENCH_ROUNDS rounds. Also the
// whole `release verify --all --json` command as a subprocess (includes tsx start-up).
// Target: concurrent <= 2 s.
//
// Loopback answers in microseconds, so there is no waiting for concurrency to overlap and the
// figure is CPU-bound (client and 400 servers on this shared 2-core machine). A second fleet
// delays every answer by BENCH_LATENCY_MS (default 20 ms; the real reference handlers run after a
// timer) to stand in for the network between an operator and remote sites: that is where the
// concurrent check differs from the sequential one.
//
// Env: BENCH_DEPLOYMENTS (200), BENCH_ROUNDS (3), BENCH_LATENCY_MS (20).

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from '../src/service/web/build/build-web.ts';
import { verifyFleet } from '../src/verify/fleet.ts';
import { type StartedProcess, startProcess } from '../test/helpers/start-process.ts';
import { startInProcessDeployment } from '../test/verify/in-process-deployments.ts';
import { median, positiveEnv } from './support.ts';

const COUNT = positiveEnv('BENCH_DEPLOYMENTS', 200);
const ROUNDS = positiveEnv('BENCH_ROUNDS', 3);
const LATENCY_MS = Number(process.env['BENCH_LATENCY_MS'] ?? 20);
const TARGET_MS = 2_000;
const SELF = fileURLToPath(import.meta.url);
const RELEASE_BIN = fileURLToPath(new URL('../bin/release.js', import.meta.url));
const TSX = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));

interface Target {
  name: string;
  url: string;
  webUrl: string;
  workerUrl: string;
}

/** Child mode: start the deployments, print them as one JSON line, serve until killed. */
async function serve(webRoot: string, latencyMs: number): Promise<void> {
  const targets: Target[] = [];
  for (let i = 0; i < COUNT; i++) {
    const d = await startInProcessDeployment({
      name: `site-${String(i).padStart(3, '0')}`,
      apiVersion: 'v3.2.1',
      // A few drifted workers (one in 50, and the last, so a small BENCH_DEPLOYMENTS has one too): findings cost too.
      workerVersion: i % 50 === 49 || i === COUNT - 1 ? 'v3.2.0' : 'v3.2.1',
      webRoot,
      latencyMs,
    });
    targets.push({ name: d.name, url: d.url, webUrl: d.webUrl, workerUrl: d.workerUrl });
  }
  process.stdout.write(`deployments ${JSON.stringify(targets)}\n`);
}

async function startFleet(webRoot: string, latencyMs: number) {
  const servers = await startProcess(TSX, {
    args: [SELF, '--serve', webRoot, String(latencyMs)],
    env: { BENCH_DEPLOYMENTS: String(COUNT) },
    readyPattern: /^deployments (?<url>\[.*\])$/m,
    timeoutMs: 120_000,
  });
  return { servers, targets: JSON.parse(servers.url) as Target[] };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'sr-bench-verify-'));
  const children: StartedProcess[] = [];
  try {
    const webRoot = join(scratch, 'web');
    await buildWeb({ version: 'v3.2.1', outDir: webRoot });
    const options = {
      env: {},
      cwd: scratch,
      timeoutMs: 5_000,
      targetTimeoutMs: 15_000,
      cli: false,
      images: { api: 'service-api', worker: 'service-worker', web: 'service-web' },
    };
    const run = async (targets: Target[], concurrency: number) => {
      const started = performance.now();
      const fleet = await verifyFleet(targets, { ...options, concurrency });
      const ms = performance.now() - started;
      const { inStep, drift, unreachable } = fleet.summary;
      if (unreachable > 0 || inStep + drift !== COUNT) {
        throw new Error(`unexpected summary ${JSON.stringify(fleet.summary)}`);
      }
      return { ms, drift };
    };

    const limits: [string, number][] = [
      ['concurrent, limit 16', 16],
      ['concurrent, limit 64', 64],
      ['sequential (limit 1)', 1],
    ];
    const results: { fleet: string; rows: [string, number][] }[] = [];
    let drift = 0;
    for (const latency of [0, LATENCY_MS]) {
      const { servers, targets } = await startFleet(webRoot, latency);
      children.push(servers);
      await run(targets, 16); // warm-up: JIT, first connections
      const samples = limits.map(() => [] as number[]);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, [, limit]] of limits.entries()) {
          const result = await run(targets, limit);
          samples[i]!.push(result.ms);
          drift = result.drift;
        }
      }
      if (latency === 0) {
        writeFileSync(join(scratch, 'release.config.json'), JSON.stringify({ deployments: targets }));
      }
      results.push({
        fleet: latency === 0 ? 'loopback, no added latency' : `every answer delayed ${latency} ms`,
        rows: limits.map(([label], i) => [label, median(samples[i]!)]),
      });
      await servers.stop();
    }

    const cliMs: number[] = [];
    const { servers, targets } = await startFleet(webRoot, 0);
    children.push(servers);
    writeFileSync(join(scratch, 'release.config.json'), JSON.stringify({ deployments: targets }));
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const code = await runCommand([RELEASE_BIN, 'verify', '--all', '--no-cli', '--json', '--cwd', scratch]);
      cliMs.push(performance.now() - started);
      if (code !== 1) throw new Error(`release verify --all exited ${code}, expected 1 (some workers drift)`);
    }

    console.log(
      `release verify --all: ${COUNT} deployments (${COUNT * 2} loopback servers in one process), ${drift} with drift`,
    );
    console.log(`median of ${ROUNDS} rounds:`);
    for (const { fleet, rows } of results) {
      console.log(`  ${fleet}:`);
      for (const [label, ms] of rows) console.log(`    ${label.padEnd(24)} ${fmt(ms)}`);
      console.log(`    speed-up of limit 16 over sequential: ${(rows[2]![1] / rows[0]![1]).toFixed(1)}x`);
    }
    console.log(
      `  whole \`release verify --all --json\` (subprocess, tsx start-up included): ${fmt(median(cliMs))}`,
    );
    const concurrent = results[0]!.rows[0]![1];
    const delayed = results[1]!.rows[0]![1];
    const worst = Math.max(concurrent, delayed);
    console.log(
      `target: concurrent (limit 16) <= ${TARGET_MS} ms: ${worst <= TARGET_MS ? 'met' : 'MISSED'} (${fmt(concurrent).trim()} loopback, ${fmt(delayed).trim()} delayed)`,
    );
  } finally {
    for (const child of children) await child.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runCommand(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error) =>
      resolve(error ? (typeof error.code === 'number' ? error.code : 1) : 0),
    );
  });
}

function fmt(ms: number): string {
  return `${ms.toFixed(0).padStart(6)} ms`;
}

if (process.argv[2] === '--serve') await serve(process.argv[3]!, Number(process.argv[4] ?? 0));
else await main();
