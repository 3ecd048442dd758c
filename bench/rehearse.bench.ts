// npm run bench:rehearse — the README's main job, `npm run rehearse`, as a number.
//
//   `npm run rehearse` whole (compile + rehearsal)     vs `node -e 0`            target <= 10 s
//   its CPU time (user + sys, from /proc/self/stat: far less sensitive to a busy machine)
//   each rehearsal step, and `release build`'s breakdown per artifact and sub-step (medians)
//
// Each round runs `node -e 0`, then `npm run -s rehearse -- --json` (what a newcomer types, the
// JavaScript compile included), and reads the per-step and per-artifact figures from the report
// it prints. With BENCH_AGAINST=<another checkout> (main's, say, extracted with `git archive` and
// node_modules linked) that checkout's `npm run rehearse` runs in the same rounds, alternating
// which goes first, so a busy shared machine weighs on both alike; its figures print beside ours.
// The load average is printed before and after: a median from a loaded machine says little.
//
// Env: BENCH_ROUNDS (default 5), BENCH_AGAINST (optional checkout to compare with).

import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RehearsalReport } from '../src/commands/rehearse/rehearsal-report.ts';
import { childCpuTicks, median, positiveEnv } from './support.ts';

const ROUNDS = positiveEnv('BENCH_ROUNDS', 5);
const TARGET_MS = 10_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AGAINST = process.env['BENCH_AGAINST'] ? resolve(process.env['BENCH_AGAINST']) : undefined;

interface Checkout {
  name: string;
  dir: string;
  /** Wall time of the whole `npm run rehearse`. */
  wholeMs: number[];
  /** Its CPU time (user + sys of npm and everything it waited for): far less sensitive to load. */
  cpuMs: number[];
  /** The rehearsal's own total, each step's and each build sub-step's, per round. */
  totalMs: number[];
  steps: Map<string, number[]>;
  build: Map<string, number[]>;
}

function checkout(name: string, dir: string): Checkout {
  return { name, dir, wholeMs: [], cpuMs: [], totalMs: [], steps: new Map(), build: new Map() };
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  map.set(key, [...(map.get(key) ?? []), value]);
}

function rehearse(c: Checkout): void {
  const ticks = childCpuTicks();
  const started = process.hrtime.bigint();
  const run = spawnSync('npm', ['run', '-s', 'rehearse', '--', '--json'], {
    cwd: c.dir,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  });
  c.wholeMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  c.cpuMs.push((childCpuTicks() - ticks) * 10); // USER_HZ is 100 on Linux
  const report = JSON.parse(run.stdout) as RehearsalReport;
  if (run.status !== 0 || !report.ok)
    throw new Error(
      `${c.name}: the rehearsal failed (${run.status}): ${report.error?.message ?? run.stderr}`,
    );
  c.totalMs.push(report.totalMs);
  for (const step of report.steps) {
    push(c.steps, step.title, step.ms);
    // A checkout from before the breakdown has none: its build is one figure, as it was.
    for (const subject of step.breakdown?.artifacts ?? []) {
      const who = subject.kind === 'base' ? 'base' : subject.name;
      push(c.build, `${who}`, subject.ms);
      for (const sub of subject.steps) push(c.build, `${who}: ${sub.name}`, sub.ms);
    }
  }
}

function nodeStart(): number {
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0'], { stdio: 'pipe' });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const ms = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '-'.padStart(8) : `${Math.round(value)} ms`.padStart(8);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function report(checkouts: Checkout[], nodeMs: number[]): void {
  const header = (label: string) =>
    `${label.padEnd(66)}${checkouts.map((c) => c.name.padStart(10)).join('')}`;
  const row = (label: string, values: (number | undefined)[]) =>
    `${label.padEnd(66)}${values.map((v) => ms(v).padStart(10)).join('')}`;
  console.log(`\nmedians of ${ROUNDS} rounds; load average at the end ${load()}\n`);
  console.log(header('measure'));
  console.log(
    row(
      'node -e 0',
      checkouts.map(() => median(nodeMs)),
    ),
  );
  console.log(
    row(
      'npm run rehearse, whole (compile included)',
      checkouts.map((c) => median(c.wholeMs)),
    ),
  );
  console.log(
    row(
      '  its CPU time (user + sys)',
      checkouts.map((c) => median(c.cpuMs)),
    ),
  );
  console.log(
    row(
      '  the rehearsal (its own total)',
      checkouts.map((c) => median(c.totalMs)),
    ),
  );
  const keys = (pick: (c: Checkout) => Map<string, number[]>) => [
    ...new Set(checkouts.flatMap((c) => [...pick(c).keys()])),
  ];
  for (const title of keys((c) => c.steps))
    console.log(
      row(
        `    ${title.slice(0, 60)}`,
        checkouts.map((c) => median(c.steps.get(title) ?? [])),
      ),
    );
  console.log('\nrelease build, per artifact and sub-step (side by side lanes overlap)');
  for (const key of keys((c) => c.build))
    console.log(
      row(
        `  ${key.includes(':') ? '  ' : ''}${key}`,
        checkouts.map((c) => median(c.build.get(key) ?? [])),
      ),
    );
  const ours = median(checkouts[0]!.wholeMs);
  console.log(
    `\nnpm run rehearse ${ms(ours).trim()} (${(ours / median(nodeMs)).toFixed(0)}x node -e 0): target <= ${TARGET_MS / 1000} s ${ours <= TARGET_MS ? 'met' : 'MISSED'}, load average ${load()} on ${availableParallelism()} cores${checkouts[1] ? `; against ${ms(median(checkouts[1].wholeMs)).trim()} (ratio ${(ours / median(checkouts[1].wholeMs)).toFixed(2)})` : ''}`,
  );
}

function main(): void {
  const checkouts = [checkout('this', ROOT), ...(AGAINST ? [checkout('against', AGAINST)] : [])];
  const nodeMs: number[] = [];
  console.log(
    `${ROUNDS} rounds${AGAINST ? `, alternating with ${AGAINST}` : ''}; load average at the start ${load()}`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    nodeMs.push(nodeStart());
    const order = round % 2 ? [...checkouts].reverse() : checkouts;
    for (const c of order) rehearse(c);
    process.stdout.write(
      `round ${round + 1}: ${checkouts.map((c) => `${c.name} ${ms(c.wholeMs.at(-1)).trim()}`).join(', ')}  (load ${load()})\n`,
    );
  }
  report(checkouts, nodeMs);
}

main();
