// npm run bench:startup — what the toolkit costs on top of Node itself to start, in one run.
//
//   `release --version`                         vs `node -e 0`                  target <= 1.3x
//   `release --help`                            vs `node -e 0`                  target <= 1.5x
//   `release stamp --dry-run --json` (tagged)   vs `node -e 0`                  target <= 2.5x
//     the same with a release.config.ts, and with a release.config.json          target <= 2.5x
//     (the .ts one after its first run: the compiled config is cached in node_modules/.cache)
//   `import('service-release/version-handler')` vs `import('node:http')`        target <= 1.5x
//
// The commands run the compiled package (bin/release.js -> lib/, built by the npm script first),
// as an installed copy would; the import resolves `service-release/...` through the package's own
// exports (self-reference from its root). stdout and stderr are pipes, as in CI.
//
// Rounds alternate the commands (in a rotating order) so load from the rest of this shared machine
// hits them alike; medians are reported, with CPU time (user + sys of the child, from
// /proc/self/stat, 10 ms ticks averaged over the rounds) beside wall time because it is far less
// sensitive to a busy machine. The four ratios are printed side by side at the end.
//
// Env: BENCH_ROUNDS (default 40).

import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GitRepo } from '../test/helpers/git-repo.ts';
import { childCpuTicks, median, positiveEnv } from './support.ts';

const ROUNDS = positiveEnv('BENCH_ROUNDS', 40);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RELEASE_BIN = fileURLToPath(new URL('../bin/release.js', import.meta.url));

interface Command {
  name: string;
  argv: string[];
  cwd: string;
  wallMs: number[];
  cpuTicks: number;
}

function main(): void {
  const repo = GitRepo.create('startup-bench-');
  repo.commit('initial');
  repo.annotatedTag('v1.0.0');
  // The same repository twice more, with a config file: TypeScript (importing defineConfig from the
  // package, linked as npm link would) and JSON, to show what each form costs beside the other.
  const withConfig = (kind: 'ts' | 'json'): GitRepo => {
    const project = GitRepo.create(`startup-bench-${kind}-`);
    project.write('.gitignore', 'node_modules/\n');
    project.write(
      `release.config.${kind}`,
      kind === 'ts'
        ? "import { defineConfig } from 'service-release';\nconst registry: string = 'registry.example.test/acme';\nexport default defineConfig({ registry });\n"
        : '{ "registry": "registry.example.test/acme" }\n',
    );
    project.commit('initial');
    project.annotatedTag('v1.0.0');
    mkdirSync(join(project.dir, 'node_modules'));
    symlinkSync(ROOT, join(project.dir, 'node_modules/service-release'));
    return project;
  };
  const tsRepo = withConfig('ts');
  const jsonRepo = withConfig('json');
  const env = { PATH: process.env['PATH'] ?? '', HOME: repo.dir, CI: 'true' };
  const command = (name: string, argv: string[], cwd = repo.dir): Command => ({
    name,
    argv: [process.execPath, ...argv],
    cwd,
    wallMs: [],
    cpuTicks: 0,
  });
  const commands = [
    command('node -e 0', ['-e', '0']),
    command('release --version', ['--', RELEASE_BIN, '--version']),
    command('release --help', ['--', RELEASE_BIN, '--help']),
    command('release stamp', ['--', RELEASE_BIN, 'stamp', '--dry-run', '--json']),
    command('stamp .ts config', ['--', RELEASE_BIN, 'stamp', '--dry-run', '--json'], tsRepo.dir),
    command('stamp .json config', ['--', RELEASE_BIN, 'stamp', '--dry-run', '--json'], jsonRepo.dir),
    command('import node:http', ['--input-type=module', '-e', "await import('node:http')"], ROOT),
    command(
      'import handler',
      ['--input-type=module', '-e', "await import('service-release/version-handler')"],
      ROOT,
    ),
  ];
  try {
    for (const c of commands) {
      const check = spawnSync(c.argv[0]!, c.argv.slice(1), { cwd: c.cwd, env, encoding: 'utf8' });
      if (check.status !== 0) throw new Error(`${c.name} failed (${check.status}): ${check.stderr}`);
    }
    console.log(`${ROUNDS} rounds, order rotating; stamp runs in a repository tagged v1.0.0`);
    for (let round = -3; round < ROUNDS; round++) {
      for (let i = 0; i < commands.length; i++) {
        const c = commands[(i + Math.max(round, 0)) % commands.length]!;
        const ticks = childCpuTicks();
        const started = process.hrtime.bigint();
        spawnSync(c.argv[0]!, c.argv.slice(1), { cwd: c.cwd, env, stdio: 'pipe' });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (round < 0) continue; // warm-up: page cache
        c.wallMs.push(ms);
        c.cpuTicks += childCpuTicks() - ticks;
      }
    }
    report(commands);
  } finally {
    repo.remove();
    tsRepo.remove();
    jsonRepo.remove();
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
      `${c.name.padEnd(18)} median ${s.wall.toFixed(1).padStart(6)} ms  p10 ${sorted[Math.floor(sorted.length * 0.1)]!.toFixed(1).padStart(6)}  p90 ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1).padStart(6)}  CPU ${s.cpu.toFixed(1).padStart(6)} ms/run`,
    );
  }
  const rows: [string, string, number][] = [
    ['release --version', 'node -e 0', 1.3],
    ['release --help', 'node -e 0', 1.5],
    ['release stamp', 'node -e 0', 2.5],
    ['stamp .ts config', 'node -e 0', 2.5],
    ['stamp .json config', 'node -e 0', 2.5],
    ['import handler', 'import node:http', 1.5],
  ];
  console.log(`\n${'measure'.padEnd(40)} ${'wall'.padStart(7)} ${'CPU'.padStart(7)}  target`);
  for (const [a, b, target] of rows) {
    const wall = stats.get(a)!.wall / stats.get(b)!.wall;
    const cpu = stats.get(a)!.cpu / stats.get(b)!.cpu;
    console.log(
      `${`${a} / ${b}`.padEnd(40)} ${`${wall.toFixed(2)}x`.padStart(7)} ${`${cpu.toFixed(2)}x`.padStart(7)}  <= ${target}x ${wall <= target ? 'met' : 'MISSED'}`,
    );
  }
}

main();
