// npm run bench:endpoint — the reference server's /api/version against a bare node:http server
// returning the same bytes, side by side in one run, on loopback, bounded in time.
//
// Both servers run as their own processes; rounds alternate (bare, reference, bare, ...) so load
// from the rest of this shared machine hits both alike; the median of the rounds is reported.
// Load comes from wrk (C, one thread) when installed, else autocannon in its own process.
// Targets: ratio >= 0.9 and p99 <= 5 ms at 64 connections.
//
// Env: BENCH_SECONDS per round (default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (64),
// BENCH_TOOL=wrk|autocannon, BENCH_PIN=1.

import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { request } from '../test/api/support.ts';
import { type StartedProcess, startProcess } from '../test/helpers/start-process.ts';
import { median, positiveEnv } from './support.ts';

const SECONDS = positiveEnv('BENCH_SECONDS', 5);
const ROUNDS = positiveEnv('BENCH_ROUNDS', 3);
const CONNECTIONS = positiveEnv('BENCH_CONNECTIONS', 64);
const TOOL = process.env['BENCH_TOOL'] ?? (spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk');
const API_BIN = fileURLToPath(new URL('../bin/service-api.js', import.meta.url));
const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));
const PATH = '/api/version';
// BENCH_PIN=1: server on CPU 0, load generator on CPU 1 (needs taskset and two cores). Off by
// default: on a machine busy with other work, pinning stops the scheduler from moving either
// process to the quieter core and makes the figures worse, not cleaner.
const PIN =
  process.env['BENCH_PIN'] === '1' &&
  spawnSync('taskset', ['-V']).error === undefined &&
  availableParallelism() >= 2;

interface Sample {
  rps: number;
  p99Ms: number;
  errors: number;
  /** Server CPU time per request (µs): far less sensitive to a busy machine than req/s. */
  cpuUsPerRequest: number;
}

const BARE_SERVER = `
  const http = require('node:http');
  const { body, headers } = JSON.parse(process.env.BENCH_REPLY);
  const bytes = Buffer.from(body);
  http.createServer((req, res) => { res.writeHead(200, headers); res.end(bytes); })
    .listen(0, '127.0.0.1', function () { console.log('bare listening on http://127.0.0.1:' + this.address().port); });
`;

async function main(): Promise<void> {
  const pinned = (args: string[]) => (PIN ? ['taskset', '-c', '0', ...args] : args);
  const reference = await startPinned(pinned([process.execPath, API_BIN]), {
    PORT: '0',
    SERVICE_VERSION: 'v1.2.3',
    SERVICE_CLI_ARCHIVE: '/nonexistent',
  });
  let bare: StartedProcess | undefined;
  try {
    const reply = await request(reference.url, PATH);
    const headers = Object.fromEntries(
      ['content-type', 'cache-control', 'x-content-type-options', 'content-length'].map((name) => [
        name,
        String(reply.headers[name]),
      ]),
    );
    bare = await startPinned(pinned([process.execPath, '-e', BARE_SERVER]), {
      BENCH_REPLY: JSON.stringify({ body: reply.body.toString(), headers }),
    });
    const check = await request(bare.url, PATH);
    if (!check.body.equals(reply.body)) throw new Error('the bare server does not return the same bytes');

    console.log(
      `tool ${TOOL}, ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s per server, ` +
        `${PIN ? 'server on CPU 0, load on CPU 1' : 'not pinned'}; body ${reply.body.length} bytes; ` +
        `load average ${loadavg()
          .map((x) => x.toFixed(1))
          .join(' ')} on ${availableParallelism()} CPUs`,
    );
    // Warm-up: JIT both servers before anything is measured.
    await load(bare, Math.min(2, SECONDS));
    await load(reference, Math.min(2, SECONDS));
    const samples = { bare: [] as Sample[], reference: [] as Sample[] };
    for (let round = 0; round < ROUNDS; round++) {
      samples.bare.push(await load(bare, SECONDS));
      samples.reference.push(await load(reference, SECONDS));
    }
    report(samples.bare, samples.reference);
  } finally {
    await bare?.stop();
    await reference.stop();
  }
}

function report(bare: Sample[], reference: Sample[]): void {
  const row = (name: string, s: Sample[]) =>
    `${name.padEnd(10)} ${fmt(median(s.map((x) => x.rps)), 0).padStart(9)} req/s  p99 ${fmt(
      median(s.map((x) => x.p99Ms)),
      2,
    ).padStart(
      6,
    )} ms  server CPU ${fmt(median(s.map((x) => x.cpuUsPerRequest)), 1).padStart(5)} µs/req  errors ${s.reduce(
      (n, x) => n + x.errors,
      0,
    )}   rounds: ${s.map((x) => `${fmt(x.rps, 0)}/${fmt(x.p99Ms, 2)}ms`).join(' ')}`;
  console.log(row('bare', bare));
  console.log(row('reference', reference));
  const ratio = median(reference.map((x) => x.rps)) / median(bare.map((x) => x.rps));
  const p99 = median(reference.map((x) => x.p99Ms));
  const cpuRatio =
    median(bare.map((x) => x.cpuUsPerRequest)) / median(reference.map((x) => x.cpuUsPerRequest));
  console.log(`CPU-efficiency ratio (bare CPU per request / reference CPU per request) ${fmt(cpuRatio, 3)}`);
  console.log(
    `ratio ${fmt(ratio, 3)} (target >= 0.9: ${ratio >= 0.9 ? 'met' : 'MISSED'}), ` +
      `reference p99 ${fmt(p99, 2)} ms (target <= 5 ms: ${p99 <= 5 ? 'met' : 'MISSED'})`,
  );
}

async function load(server: StartedProcess, seconds: number): Promise<Sample> {
  const cpuBefore = cpuTicksOf(server.proc.pid!);
  const sample = await measure(server.url, seconds);
  const ticks = cpuTicksOf(server.proc.pid!) - cpuBefore;
  const requests = sample.rps * seconds;
  return { ...sample, cpuUsPerRequest: requests > 0 ? (ticks * 10_000) / requests : Number.NaN };
}

/** utime + stime of a process in clock ticks (100 per second on Linux). */
function cpuTicksOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function measure(url: string, seconds: number): Promise<Omit<Sample, 'cpuUsPerRequest'>> {
  const target = `${url}${PATH}`;
  const pin = (args: string[]) => (PIN ? ['taskset', '-c', '1', ...args] : args);
  const [command, ...args] =
    TOOL === 'wrk'
      ? pin(['wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', target])
      : pin([process.execPath, AUTOCANNON, '-c', String(CONNECTIONS), '-d', String(seconds), '-j', target]);
  return new Promise((resolve, reject) => {
    execFile(
      command!,
      args,
      { timeout: (seconds + 30) * 1000, maxBuffer: 8 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${command} failed: ${error.message}\n${stderr}`));
        try {
          resolve(TOOL === 'wrk' ? parseWrk(stdout) : parseAutocannon(stdout));
        } catch (parseError) {
          reject(parseError);
        }
      },
    );
  });
}

function parseWrk(out: string): Omit<Sample, 'cpuUsPerRequest'> {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p99 = /^\s+99%\s+([\d.]+)(us|ms|s)\s*$/m.exec(out);
  if (!rps || !p99) throw new Error(`cannot read wrk output:\n${out}`);
  const scale = { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's'];
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors =
    Number(non2xx?.[1] ?? 0) + (socketErrors ? socketErrors.slice(1).reduce((n, x) => n + Number(x), 0) : 0);
  return { rps: Number(rps[1]), p99Ms: Number(p99[1]) * scale, errors };
}

function parseAutocannon(out: string): Omit<Sample, 'cpuUsPerRequest'> {
  const result = JSON.parse(out) as {
    requests: { average: number };
    latency: { p99: number };
    errors: number;
    non2xx: number;
  };
  return { rps: result.requests.average, p99Ms: result.latency.p99, errors: result.errors + result.non2xx };
}

function startPinned([command, ...args]: string[], env: Record<string, string>): Promise<StartedProcess> {
  // startProcess runs .js files with node; a command line is run as given.
  return startProcess(command!, { args, env, readyPattern: /listening on (http:\/\/\S+)/ });
}

function fmt(value: number, digits: number): string {
  return value.toFixed(digits);
}

await main();
