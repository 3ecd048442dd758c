/**
 * `npm run bench:upgrade-cluster`: `release upgrade` of API and worker on a real three-node Swarm
 * (three replicas each, one per node), next to two `docker service update --image` run one after
 * the other on the same services (what an operator does by hand). Both wait for every task to run
 * the new image; both use the services' 1 s update monitor (`--monitor 1000` for upgrade), and
 * upgrade also reads the nodes, the versions every node's API reports and runs the verify checks.
 *
 * Each round: upgrade v1 -> v2, then docker v2 -> v1. Round 0 pulls the images on every node and
 * is not counted. Bounded: 3 rounds, the whole run stops after 300 s.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  API,
  image,
  startClusterDeployment,
  upgrade,
  versionsByNode,
  WORKER,
} from '../test/upgrade/cluster.ts';
import { median } from './support.ts';

const run = promisify(execFile);
const ROUNDS = 3;
const DEADLINE = Date.now() + 300_000;

const setupStarted = performance.now();
const d = await startClusterDeployment();
const rows: { round: number; upgrade: number; docker: number }[] = [];
try {
  console.error(
    `three nodes, registry, two releases and two services ready in ${ms(performance.now() - setupStarted)}`,
  );
  const docker = (...args: string[]) =>
    run('docker', ['-H', d.cluster.manager.host, ...args], { timeout: 120_000 });

  for (let round = 0; round <= ROUNDS && Date.now() < DEADLINE; round++) {
    let started = performance.now();
    const result = await upgrade(d, ['--to', 'v2.0.0'], 120_000);
    const upgraded = performance.now() - started;
    if (result.code !== 0)
      throw new Error(`release upgrade exited ${result.code}: ${result.stdout}${result.stderr}`);

    started = performance.now();
    await docker('service', 'update', '--quiet', '--image', image(d, 'api', 'v1.0.0'), API);
    await docker('service', 'update', '--quiet', '--image', image(d, 'worker', 'v1.0.0'), WORKER);
    const manual = performance.now() - started;
    const versions = await versionsByNode(d);
    if (!versions.every((v) => v === 'v1.0.0'))
      throw new Error(`docker left the nodes at ${versions.join(', ')}`);
    console.error(
      `round ${round}${round === 0 ? ' (warm-up, not counted)' : ''}: upgrade ${ms(upgraded)}, docker ${ms(manual)}`,
    );
    if (round > 0) rows.push({ round, upgrade: upgraded, docker: manual });
  }
} finally {
  await d.stop();
}

console.log('');
console.log(
  'three nodes: release upgrade (API + worker, checked per node) vs two sequential `docker service update --image`',
);
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
  console.log(
    `${'median'.padEnd(7)}${ms(up).padStart(17)}${ms(dk).padStart(12)}${(up / dk).toFixed(2).padStart(8)}`,
  );
}

function ms(value: number): string {
  return `${(value / 1000).toFixed(2)} s`;
}
