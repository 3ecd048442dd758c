// npm run bench:init — how long release init's readers take on hostile lines, by size.
//
// Each shape is one a backtracking pattern once took quadratic time on (a 500 KB line kept init
// busy for 9.5 minutes): runs of spaces and tabs in a FROM line, an unterminated quote in ENV,
// `a/a/a...` and `////...` COPY sources, `${a:-${a:-...` in an image: line, a quoted 1 MB YAML
// scalar, an unterminated pyproject section. Timed in process (detect and plan, no disk), the best
// of BENCH_ROUNDS rounds, at 256 KB, 512 KB, 1 MB and 2 MB. Linear means the 2 MB time is about
// twice the 1 MB one. Target: every shape under 1 s at 1 MB.
//
// Then `release init` as a process (the bin, as users run it) on a repository whose Dockerfile,
// compose file and pyproject.toml hold a 1 MB line, beside the same repository with short lines,
// best of BENCH_ROUNDS each. Target: under 1 s more (test/init/long-lines.test.ts holds only a
// generous deadline).
//
// Env: BENCH_ROUNDS (3).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { detectProject, type ProjectFiles } from '../src/init/detect.ts';
import { planConfig } from '../src/init/plan-config.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const KB = 1024;

function files(contents: Record<string, string>): ProjectFiles {
  return { paths: Object.keys(contents), read: (path) => contents[path], exists: () => false };
}

const SHAPES: Record<string, (n: number) => Record<string, string>> = {
  'FROM with spaces': (n) => ({ Dockerfile: `FROM node:20 AS ${' '.repeat(n)}x\n` }),
  'ENV unterminated quote': (n) => ({ Dockerfile: `FROM node:20\nENV A="${'x'.repeat(n)}\n` }),
  'COPY a/a/a': (n) => ({ Dockerfile: `FROM node:20\nCOPY ${'a/'.repeat(n / 2)} /x\nCMD ["x"]\n` }),
  'ARG names': (n) => ({ Dockerfile: `ARG ${'A_VERSION '.repeat(n / 10)}\nFROM node:20\n` }),
  'image ${a:-${a:-': (n) => ({
    'compose.yaml': `services:\n  a:\n    image: ghcr.io/${'${a:-'.repeat(n / 5)}\n    build: .\n`,
    Dockerfile: 'FROM node:20\n',
  }),
  'quoted YAML scalar': (n) => ({
    'compose.yaml': `services:\n  a:\n    build:\n      context: "${'../'.repeat(n / 3)}"\n`,
  }),
  'pyproject section': (n) => ({ 'pyproject.toml': `[project${' '.repeat(n)}\nname = "x"\n` }),
  'build script tokens': (n) => ({ 'scripts/build-cli.sh': `tar czf ${'dist/'.repeat(n / 5)}\n` }),
  'workflow run line': (n) => ({
    '.github/workflows/release.yml': `on: push\njobs:\n  b:\n    steps:\n      - run: docker build ${'-t x '.repeat(n / 5)} .\n`,
  }),
  'workflow expressions': (n) => ({
    '.github/workflows/release.yml': `on: push\njobs:\n  b:\n    steps:\n      - run: echo ${'${{ '.repeat(n / 4)}\n`,
  }),
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

const sizes = [256 * KB, 512 * KB, 1024 * KB, 2048 * KB];
console.log(`release init readers, best of ${ROUNDS} (ms)`);
console.log(['shape', ...sizes.map((s) => `${s / KB} KB`), '2 MB / 1 MB'].join('\t'));
let worstAtOneMb = 0;
for (const [name, shape] of Object.entries(SHAPES)) {
  const times = sizes.map((size) => {
    const project = shape(size);
    return best(() => void planConfig(detectProject(files(project)), { name: 'bench' }));
  });
  worstAtOneMb = Math.max(worstAtOneMb, times[2]!);
  console.log([name, ...times.map((t) => t.toFixed(0)), (times[3]! / times[2]!).toFixed(2)].join('\t'));
}
console.log(`worst at 1 MB: ${worstAtOneMb.toFixed(0)} ms (target < 1000)`);
if (worstAtOneMb >= 1000) process.exitCode = 1;

/** `release init --force` as a process on a repository with lines of `n` characters: best of ROUNDS, in ms. */
function initProcess(n: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'bench-init-'));
  try {
    const contents: Record<string, string> = {
      'api/Dockerfile': `FROM node:20 AS ${' '.repeat(n)}x\nENV A="${'x'.repeat(n)}\nCOPY ${'a/'.repeat(n / 2)} /x\nCMD ["node"]\n`,
      'compose.yaml': `services:\n  api:\n    image: ghcr.io/acme/${'${a:-'.repeat(n / 5)}\n    build: ./api\n`,
      'pyproject.toml': `[project${' '.repeat(n)}\nname = "acme"\n`,
    };
    for (const [path, text] of Object.entries(contents)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'service');
    const bin = new URL('../bin/release.js', import.meta.url).pathname;
    const argv = [bin, 'init', '--yes', '--force', '--ci', 'none', '--name', 'acme'];
    return best(() => {
      const run = spawnSync(process.execPath, argv, { cwd: dir, stdio: 'ignore' });
      if (run.status !== 0) throw new Error(`release init exited ${run.status}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const shortMs = initProcess(16);
const longMs = initProcess(1024 * KB);
console.log(
  `release init process: short lines ${shortMs.toFixed(0)} ms, 1 MB lines ${longMs.toFixed(0)} ms, ${(longMs - shortMs).toFixed(0)} ms more (target < 1000)`,
);
if (longMs - shortMs >= 1000) process.exitCode = 1;
