// npm run bench:yaml — how long the one YAML reader (src/text/parse-yaml.ts) takes on hostile
// deployment files, and `release verify --manifests` on a folder holding one of each.
//
// Shapes: one line of `"x" "x" …` (the `yaml` package alone took 46-69 s on 200 KB, one pretty
// error per token), 50,000 anchors each aliasing the one before (89 s), `---` × 500,000 (6.6 s and
// 555 MB), a 2 MB valid values file. Timed in process, the best of BENCH_ROUNDS rounds.
// Target: each hostile shape under 1 s at 200 KB, and the whole verify run under 10 s.
//
// Env: BENCH_ROUNDS (3).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.ts';
import { readYaml } from '../src/text/parse-yaml.ts';
import { positiveEnv } from './support.ts';

const ROUNDS = positiveEnv('BENCH_ROUNDS', 3);
const KB = 1024;

const SHAPES: Record<string, (bytes: number) => string> = {
  '"x" "x" … on one line': (n) => Array.from({ length: n / 4 }, () => '"x"').join(' '),
  'anchors aliasing the one before': (n) =>
    Array.from({ length: n / 24 }, (_, i) => `a${i}: &a${i} [${i ? `*a${i - 1}` : 1}]`).join('\n'),
  '--- documents': (n) => '---\n'.repeat(n / 4),
  'valid values': (n) =>
    Array.from({ length: n / 40 }, (_, i) => `k${i}:\n  image: acme/x\n  tag: v1.${i}.0\n`).join(''),
};

function best(work: () => void): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

const sizes = [200 * KB, 1024 * KB, 2048 * KB];
console.log(`readYaml, best of ${ROUNDS} (ms)`);
console.log(['shape', ...sizes.map((s) => `${s / KB} KB`), 'stopped by'].join('\t'));
let worst = 0;
for (const [name, shape] of Object.entries(SHAPES)) {
  let stopped = '';
  const times = sizes.map((size) => {
    const text = shape(size);
    return best(() => {
      stopped = readYaml(text).problem?.code ?? 'read whole';
    });
  });
  if (name !== 'valid values') worst = Math.max(worst, times[0]!);
  console.log([name, ...times.map((t) => t.toFixed(0)), stopped].join('\t'));
}
console.log(`worst hostile shape at 200 KB: ${worst.toFixed(0)} ms (target < 1000)`);

// The whole command, as the issue found it: every shape at 200 KB in the manifests folder.
const dir = mkdtempSync(join(tmpdir(), 'sr-bench-yaml-'));
try {
  mkdirSync(join(dir, 'deploy'));
  writeFileSync(
    join(dir, 'release.config.json'),
    JSON.stringify({ artifacts: { api: { image: 'acme/x' } } }),
  );
  writeFileSync(
    join(dir, 'deploy/app.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - image: acme/x:v1.0.0\n',
  );
  for (const [i, shape] of Object.values(SHAPES).entries())
    writeFileSync(join(dir, `deploy/hostile-${i}.yaml`), shape(200 * KB));
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    const code = await main(['verify', '--manifests', 'deploy', '--expect', 'v1.0.0'], {
      cwd: dir,
      stdout: { write: () => true },
      stderr: { write: () => true },
    });
    if (code !== 0) throw new Error(`verify --manifests exited ${code}`);
    fastest = Math.min(fastest, performance.now() - started);
  }
  console.log(`verify --manifests with every shape at 200 KB: ${fastest.toFixed(0)} ms (target < 10000)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
