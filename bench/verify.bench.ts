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
// Target (issue 8): concurrent <= 2 s.
//
// Env: BENCH_DEPLOYMENTS (200), BENCH_ROUNDS (3).

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from '../src/service/web/build/build-web.ts';
import { verifyFleet } from '../src/verify/fleet.ts';
import { type StartedProcess, startProcess } from '../test/helpers/start-process.ts';
import { startInProcessDeployment } from '../test/verify/in-process-deployments.ts';

const COUNT = positive('BENCH_DEPLOYMENTS', 200);
const ROUNDS = positive('BENCH_ROUNDS', 3);
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
async function serve(webRoot: string): Promise<void> {
  const targets: Target[] = [];
  for (let i = 0; i < COUNT; i++) {
    const d = await startInProcessDeployment({
      name: `site-${String(i).padStart(3, '0')}`,
      apiVersion: 'v3.2.1',
      workerVersion: i % 50 === 49 ? 'v3.2.0' : 'v3.2.1', // a few drifted workers: findings cost too
      webRoot,
    });
    targets.push({ name: d.name, url: d.url, webUrl: d.webUrl, workerUrl: d.workerUrl });
  }
  process.stdout.write(`deployments ${JSON.stringify(targets)}\n`);
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'sr-bench-verify-'));
  let servers: StartedProcess | undefined;
  try {
    const webRoot = join(scratch, 'web');
    await buildWeb({ version: 'v3.2.1', outDir: webRoot });
    servers = await startProcess(TSX, {
      args: [SELF, '--serve', webRoot],
      env: { BENCH_DEPLOYMENTS: String(COUNT) },
      readyPattern: /^deployments (?<url>\[.*\])$/m,
      timeoutMs: 120_000,
    });
    const targets = JSON.parse(servers.url) as Target[];
    const options = {
      env: {},
      cwd: scratch,
      timeoutMs: 5_000,
      targetTimeoutMs: 15_000,
      cli: false,
      images: { api: 'service-api', worker: 'service-worker', web: 'service-web' },
    };
    const run = async (concurrency: number) => {
      const started = performance.now();
      const fleet = await verifyFleet(targets, { ...options, concurrency });
      const ms = performance.now() - started;
      const { inStep, drift, unreachable } = fleet.summary;
      if (unreachable > 0 || inStep + drift !== COUNT)
        throw new Error(`unexpected summary ${JSON.stringify(fleet.summary)}`);
      return { ms, drift };
    };

    await run(16); // warm-up: JIT, sockets
    const rows: [string, number[]][] = [
      ['concurrent, limit 16', []],
      ['concurrent, limit 64', []],
      ['sequential (limit 1)', []],
    ];
    let drift = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, samples] of rows) {
        const limit = label.startsWith('sequential') ? 1 : label.endsWith('64') ? 64 : 16;
        const result = await run(limit);
        samples.push(result.ms);
        drift = result.drift;
      }
    }

    writeFileSync(join(scratch, 'release.config.json'), JSON.stringify({ deployments: targets }));
    const cliMs: number[] = [];
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
    for (const [label, samples] of rows) console.log(`  ${label.padEnd(24)} ${fmt(median(samples))}`);
    console.log(`  ${'whole CLI (subprocess)'.padEnd(24)} ${fmt(median(cliMs))}  (tsx start-up included)`);
    const concurrent = median(rows[0]![1]);
    const sequential = median(rows[2]![1]);
    console.log(`speed-up over sequential: ${(sequential / concurrent).toFixed(1)}x`);
    console.log(`target: concurrent <= ${TARGET_MS} ms: ${concurrent <= TARGET_MS ? 'met' : 'MISSED'}`);
  } finally {
    await servers?.stop();
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function fmt(ms: number): string {
  return `${ms.toFixed(0).padStart(6)} ms`;
}

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

if (process.argv[2] === '--serve') await serve(process.argv[3]!);
else await main();
