// npm run bench:init — how long release init's readers take on hostile lines, by size.
//
// Each shape is one a backtracking pattern once took quadratic time on (a 500 KB line kept init
// busy for 9.5 minutes): runs of spaces and tabs in a FROM line, an unterminated quote in ENV,
// `a/a/a...` and `////...` COPY sources, `${a:-${a:-...` in an image: line, a quoted 1 MB YAML
// scalar, an unterminated pyproject section. Timed in process (detect and plan, no disk), the best
// of BENCH_ROUNDS rounds, at 256 KB, 512 KB, 1 MB and 2 MB. Linear means the 2 MB time is about
// twice the 1 MB one. Target: every shape under 1 s at 1 MB.
//
// Env: BENCH_ROUNDS (3).

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
