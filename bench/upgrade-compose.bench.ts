/**
 * `npm run bench:upgrade-compose`: `release upgrade --compose` moving API and worker (with the
 * scheduler of the worker's image and the one-shot `init` job) of a Compose project to another
 * release, next to `docker-compose up -d` run by hand on the same project (what an operator does
 * after editing the tags), timed until the API answers the new version. Upgrade also resolves the
 * tag in the registry, reads the project from the engine, pulls first, runs the one-shot to
 * completion, waits for every container on the digest (1 s monitor), reads the versions both
 * report and runs the verify checks; by hand waits for none of that.
 *
 * Both run as the commands a person types (subprocesses) against one private dockerd, with
 * Debian's docker-compose and images `release build` pushed to a real registry. Each round:
 * upgrade v1 -> v2, then by hand v2 -> v1 (the override removed, the files' own v1 images).
 * Round 0 pulls the images and is not counted. Bounded: 3 rounds, the whole run stops after 300 s.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runRelease } from '../test/helpers/run-release.ts';
import { composeTarget, composeUpByHand, PROJECT, startComposeRig } from '../test/upgrade/compose.ts';
import { median } from './support.ts';

const ROUNDS = 3;
const DEADLINE = Date.now() + 300_000;

const setupStarted = performance.now();
const rig = await startComposeRig();
const rows: { round: number; upgrade: number; manual: number }[] = [];
try {
  await composeUpByHand(rig, 'v1.0.0');
  console.error(
    `dockerd, registry, two releases and the project ready in ${ms(performance.now() - setupStarted)}`,
  );
  const override = join(rig.file, '..', '.release', `${PROJECT}.override.yml`);

  for (let round = 0; round <= ROUNDS && Date.now() < DEADLINE; round++) {
    let started = performance.now();
    const result = await runRelease(
      ['upgrade', '--to', 'v2.0.0', ...composeTarget(rig), '--monitor', '1000', '--json'],
      { cwd: rig.repo.dir, timeoutMs: 150_000, subprocess: true },
    );
    const upgrade = performance.now() - started;
    if (result.code !== 0)
      throw new Error(`release upgrade exited ${result.code}: ${result.stdout}${result.stderr}`);
    if (round === 0) {
      const events = (JSON.parse(result.stdout) as { events: { ms: number; text: string }[] }).events;
      for (const e of events)
        console.error(`  ${(e.ms / 1000).toFixed(1).padStart(6)} s  ${e.text.slice(0, 140)}`);
    }

    rmSync(override);
    started = performance.now();
    await composeUpByHand(rig, 'v1.0.0');
    const manual = performance.now() - started;
    console.error(
      `round ${round}${round === 0 ? ' (warm-up, not counted)' : ''}: upgrade ${ms(upgrade)}, docker-compose up -d ${ms(manual)}`,
    );
    if (round > 0) rows.push({ round, upgrade, manual });
  }
} finally {
  await rig.stop();
}

console.log('');
console.log(
  'release upgrade --compose (API + worker + scheduler + init, checked) vs `docker-compose up -d` by hand',
);
console.log(
  `${'round'.padEnd(7)}${'release upgrade'.padStart(17)}${'by hand'.padStart(12)}${'ratio'.padStart(8)}`,
);
for (const r of rows) {
  console.log(
    `${String(r.round).padEnd(7)}${ms(r.upgrade).padStart(17)}${ms(r.manual).padStart(12)}${(r.upgrade / r.manual).toFixed(2).padStart(8)}`,
  );
}
if (rows.length > 0) {
  const up = median(rows.map((r) => r.upgrade));
  const hand = median(rows.map((r) => r.manual));
  console.log(
    `${'median'.padEnd(7)}${ms(up).padStart(17)}${ms(hand).padStart(12)}${(up / hand).toFixed(2).padStart(8)}`,
  );
}

function ms(value: number): string {
  return `${(value / 1000).toFixed(2)} s`;
}
