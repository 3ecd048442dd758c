// npm run bench:svc — how much `svc` costs on top of Node itself, in one run, on loopback.
//
//   1. `svc --version` (the bundled svc from a real archive, installed with npm into a temp prefix
//      and run through its bin link, shebang and all) against `node -e 0`. Target <= 1.15x.
//   2. A gated command against the real reference API (bin/service-api.js) on loopback, against
//      `svc --version`. Target <= 1.3x. Two are measured: `svc version` (the gate's one
//      GET /api/version and its verdict printed) and `svc status` (the gate, then the command's
//      own GET: the gate plus a command that does real work).
//   3. `svc status` against a server that accepts and never answers, with a 1500 ms
//      SVC_VERSION_CHECK_TIMEOUT_MS: it must end once, at that one deadline (the gate's and the
//      command's share it). Target: the median within the deadline + 1000 ms (test/svc holds only
//      that it is less than two deadlines). BENCH_STALLED_ROUNDS rounds (default 5).
//
// stdout and stderr are pipes, as when a script or CI reads svc's output. That matters: with a
// pipe (or a terminal) Node loads its net and stream modules for stdout, with /dev/null it does
// not, and those are most of what http costs. `node -e "process.stdout.write(...)"` is shown
// beside `node -e 0` as what printing one line costs any program, and `node http GET` (a bare
// `node -e` doing one http.get of /api/version and printing the body) as the floor for any Node
// program that asks the API anything.
//
// Rounds alternate the commands (in a rotating order) so load from the rest of this shared machine
// hits them alike; medians are reported. Wall time is what a person feels; CPU time (user + sys
// of the child, from /proc/self/stat, 10 ms ticks averaged over the rounds) is far less sensitive
// to a busy machine and is shown beside it.
//
// Env: BENCH_ROUNDS (default 60).

import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCliArchive } from '../src/service/svc/build/build-cli-archive.ts';
import { startProcess } from '../test/helpers/start-process.ts';
import { childCpuTicks, median, positiveEnv } from './support.ts';

const ROUNDS = positiveEnv('BENCH_ROUNDS', 60);
const API_BIN = fileURLToPath(new URL('../bin/service-api.js', import.meta.url));

const BARE_GET = `require('node:http').get(process.env.SERVICE_API_URL + '/api/version', { agent: false }, (res) => {
  let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => process.stdout.write(body + '\\n'));
});`;

interface Command {
  name: string;
  argv: string[];
  wallMs: number[];
  cpuTicks: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  // BENCH_SVC_SIGNED=1: an svc with the release signing key baked in, to show that
  // --version and the gate cost the same with it (only `svc update` reads the key).
  const signed = process.env['BENCH_SVC_SIGNED'] === '1';
  const key = signed ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }) : undefined;
  const archive = await buildCliArchive({
    version: 'v1.0.0',
    outFile: join(dir, 'service-cli.tar.gz'),
    signing: key && {
      publicKeyPem: key.publicKey.export({ type: 'spki', format: 'pem' }) as string,
      privateKey: key.privateKey,
    },
  });
  console.log(`svc ${signed ? 'with a baked signing key (BENCH_SVC_SIGNED=1)' : 'without a signing key'}`);
  const prefix = join(dir, 'prefix');
  const install = spawnSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', archive.path],
    {
      encoding: 'utf8',
    },
  );
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  const svc = join(prefix, 'bin', 'svc');
  const api = await startProcess(API_BIN, {
    env: { HOST: '127.0.0.1', PORT: '0', SERVICE_VERSION: 'v1.0.0', SERVICE_CLI_ARCHIVE: archive.path },
  });
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: join(dir, 'home'),
    SERVICE_API_URL: api.url,
    CI: 'true',
  };
  try {
    const commands: Command[] = [
      { name: 'node -e 0', argv: [process.execPath, '-e', '0'], wallMs: [], cpuTicks: 0 },
      {
        name: 'node print',
        argv: [process.execPath, '-e', 'process.stdout.write("svc x\\n")'],
        wallMs: [],
        cpuTicks: 0,
      },
      { name: 'node http GET', argv: [process.execPath, '-e', BARE_GET], wallMs: [], cpuTicks: 0 },
      { name: 'svc --version', argv: [svc, '--version'], wallMs: [], cpuTicks: 0 },
      { name: 'svc status', argv: [svc, 'status'], wallMs: [], cpuTicks: 0 },
      { name: 'svc version', argv: [svc, 'version'], wallMs: [], cpuTicks: 0 },
    ];
    for (const command of commands) {
      const check = spawnSync(command.argv[0]!, command.argv.slice(1), { env, encoding: 'utf8' });
      if (check.status !== 0 || check.stderr) throw new Error(`${command.name} failed: ${check.stderr}`);
    }
    console.log(
      `svc ${archive.size}-byte archive in ${prefix}; API ${api.url}; ${ROUNDS} rounds, order rotating`,
    );
    for (let round = -5; round < ROUNDS; round++) {
      for (let i = 0; i < commands.length; i++) {
        const command = commands[(i + Math.max(round, 0)) % commands.length]!;
        const ticks = childCpuTicks();
        const started = process.hrtime.bigint();
        spawnSync(command.argv[0]!, command.argv.slice(1), { env, stdio: 'pipe' });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (round < 0) continue; // warm-up: page cache, npm's link, the API's JIT
        command.wallMs.push(ms);
        command.cpuTicks += childCpuTicks() - ticks;
      }
    }
    report(commands);
    await stalledStatus(svc, env);
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(commands: Command[]): void {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  const stats = new Map(
    commands.map(
      (c) => [c.name, { wall: median(c.wallMs), cpu: (c.cpuTicks * tick) / c.wallMs.length }] as const,
    ),
  );
  for (const c of commands) {
    const s = stats.get(c.name)!;
    const sorted = [...c.wallMs].sort((a, b) => a - b);
    console.log(
      `${c.name.padEnd(15)} median ${s.wall.toFixed(1).padStart(6)} ms  p10 ${sorted[Math.floor(sorted.length * 0.1)]!.toFixed(1).padStart(6)}  p90 ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1).padStart(6)}  CPU ${s.cpu.toFixed(1).padStart(6)} ms/run`,
    );
  }
  const ratio = (a: string, b: string, key: 'wall' | 'cpu') => stats.get(a)![key] / stats.get(b)![key];
  const line = (a: string, b: string, target: number) => {
    const wall = ratio(a, b, 'wall');
    console.log(
      `${a} / ${b}: ${wall.toFixed(3)}x wall${Number.isFinite(target) ? ` (target <= ${target}x: ${wall <= target ? 'met' : 'MISSED'})` : ''}, ${ratio(a, b, 'cpu').toFixed(3)}x CPU`,
    );
  };
  line('svc --version', 'node -e 0', 1.15);
  line('svc --version', 'node print', 1.15);
  line('svc version', 'svc --version', 1.3);
  line('svc status', 'svc --version', 1.3);
  console.log('for reference, what svc adds to a bare Node program making the same request:');
  line('svc version', 'node http GET', Number.POSITIVE_INFINITY);
}

/** Part 3: `svc status` against a server that never answers ends at its one deadline. */
async function stalledStatus(svc: string, env: Record<string, string>): Promise<void> {
  const deadlineMs = 1500;
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const wall: number[] = [];
  try {
    for (let round = 0; round < positiveEnv('BENCH_STALLED_ROUNDS', 5); round++) {
      const started = process.hrtime.bigint();
      const run = spawnSync(svc, ['status', '--url', `http://127.0.0.1:${port}`], {
        env: { ...env, SVC_VERSION_CHECK_TIMEOUT_MS: String(deadlineMs) },
        stdio: 'pipe',
        timeout: 20_000,
      });
      wall.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (run.status !== 3) throw new Error(`svc status against a stalled server exited ${run.status}`);
    }
  } finally {
    for (const socket of sockets) socket.destroy();
    server.close();
  }
  const ms = median(wall);
  const met = ms <= deadlineMs + 1000;
  console.log(
    `svc status, stalled server: median ${ms.toFixed(0)} ms for a ${deadlineMs} ms deadline, ${(ms / deadlineMs).toFixed(2)}x (target <= ${deadlineMs} + 1000 ms: ${met ? 'met' : 'MISSED'})`,
  );
}

await main();
