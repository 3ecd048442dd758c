#!/usr/bin/env node
// npm run test:durations — after a whole `npm test`, write each test file's duration (seconds,
// as Vitest's results cache holds them) into test/durations.json, which the suite's sequencer
// (test/helpers/slowest-first-sequencer.ts) reads to start the longest files first. Files the
// run did not cover keep their recorded time; files that no longer exist are dropped.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.vite/vitest');
const OUT = join(ROOT, 'test/durations.json');

const caches = existsSync(CACHE)
  ? readdirSync(CACHE)
      .map((dir) => join(CACHE, dir, 'results.json'))
      .filter((file) => existsSync(file))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  : [];
if (caches.length === 0) {
  console.error(`no Vitest results under ${CACHE}: run the whole suite (npm test) first`);
  process.exit(2);
}
const { results } = JSON.parse(readFileSync(caches[0], 'utf8'));
const recorded = existsSync(OUT) ? JSON.parse(readFileSync(OUT, 'utf8')) : {};
for (const [key, result] of results) {
  // Keys are `<project>:<path>`; a failed file's time says little about a passing run's.
  const file = key.slice(key.indexOf(':') + 1);
  if (!result.failed && typeof result.duration === 'number')
    recorded[file] = Math.max(1, Math.round(result.duration / 1000));
}
const kept = Object.entries(recorded)
  .filter(([file]) => existsSync(join(ROOT, file)))
  .sort(([a], [b]) => (a < b ? -1 : 1));
writeFileSync(OUT, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
console.log(`${OUT}: ${kept.length} files, ${results.length} from ${caches[0]}`);
