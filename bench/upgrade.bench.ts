/**
 * `npm run bench:upgrade`: the time of `release upgrade` moving API and worker of a Swarm
 * deployment to another release, next to two `docker service update --image` run one after the
 * other on the same services (what an operator does by hand). Target: <= 1.2x, while upgrade also
 * resolves the tag in the registry, reads both services and the API's version, waits for every
 * task to run the new digest, reads the versions both report and runs the verify checks.
 *
 * Both run as the commands a person types (subprocesses) against one private dockerd in swarm
 * mode, with images `release build` pushed to a real registry. Both wait for convergence with the
 * same 5 s stability window (Swarm's default update monitor, which `docker service update` waits
 * out; `release upgrade --monitor` defaults to 5 s). Each round: upgrade v1 -> v2, then docker
 * v2 -> v1. Round 0 pulls the images and is not counted. Bounded: 3 rounds, the whole run stops
 * after 240 s.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runRelease } from '../test/helpers/run-release.ts';
import {
  API_SERVICE,
  createServices,
  pinned,
  rigTarget,
  startSwarmRig,
  WORKER_SERVICE,
} from '../test/upgrade/swarm.ts';
import { median } from './support.ts';

const run = promisify(execFile);
const ROUNDS = 3;
const DEADLINE = Date.now() + 240_000;

const setupStarted = performance.now();
const rig = await startSwarmRig();
const rows: { round: number; upgrade: number; docker: number }[] = [];
try {
  await createServices(rig);
  console.error(
    `swarm, registry, two releases and two services ready in ${Math.round(performance.now() - setupStarted)} ms`,
  );
  const v1 = rig.digests['v1.0.0']!;
  // Upgrade needs only the registry from the config: nothing about how the artifacts are built.
  writeFileSync(join(rig.repo.dir, 'upgrade.config.json'), JSON.stringify({ registry: rig.namespace }));
  const docker = (...args: string[]) => run('docker', ['-H', rig.engine.host, ...args], { timeout: 120_000 });

  for (let round = 0; round <= ROUNDS && Date.now() < DEADLINE; round++) {
    let started = performance.now();
    const result = await runRelease(
      ['upgrade', '--config', 'upgrade.config.json', '--to', 'v2.0.0', ...rigTarget(rig), '--json'],
      { cwd: rig.repo.dir, timeoutMs: 120_000, subprocess: true },
    );
    const upgrade = performance.now() - started;
    if (result.code !== 0)
      throw new Error(`release upgrade exited ${result.code}: ${result.stdout}${result.stderr}`);

    started = performance.now();
    await docker(
      'service',
      'update',
      '--quiet',
      '--image',
      pinned(rig, 'api', 'v1.0.0', v1.api),
      API_SERVICE,
    );
    await docker(
      'service',
      'update',
      '--quiet',
      '--image',
      pinned(rig, 'worker', 'v1.0.0', v1.worker),
      WORKER_SERVICE,
    );
    const manual = performance.now() - started;
    console.error(
      `round ${round}${round === 0 ? ' (warm-up, not counted)' : ''}: upgrade ${ms(upgrade)}, docker ${ms(manual)}`,
    );
    if (round > 0) rows.push({ round, upgrade, docker: manual });
  }
} finally {
  await rig.stop();
}

console.log('');
console.log('release upgrade (API + worker, checked) vs two sequential `docker service update --image`');
console.log(
  `${'round'.padEnd(7)}${'release upgrade'.padStart(17)}${'docker x2'.padStart(12)}${'ratio'.padStart(8)}`,
);
for (const r of rows) {
  console.log(
    `${String(r.round).padEnd(7)}${ms(r.upgrade).padStart(17)}${ms(r.docker).padStart(12)}${(r.upgrade / r.docker).toFixed(2).padStart(8)}`,
  );
}
if (rows.length > 0) {
  const up = median(rows.map((r) => r.upgrade));
  const dk = median(rows.map((r) => r.docker));
  const ratio = up / dk;
  console.log(
    `${'median'.padEnd(7)}${ms(up).padStart(17)}${ms(dk).padStart(12)}${ratio.toFixed(2).padStart(8)}   target <= 1.20: ${ratio <= 1.2 ? 'met' : 'NOT met'}`,
  );
}

function ms(value: number): string {
  return `${(value / 1000).toFixed(2)} s`;
}
