import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS = new URL('../durations.json', import.meta.url);

/**
 * Test files in the order that ends the suite soonest on a few workers: the longest first, so a
 * two-minute engine suite never starts last and runs alone while the other worker idles.
 *
 * Vitest orders by its own cache of the last run's durations, which a fresh CI clone does not
 * have (it then starts the largest files first, and file size says little about time). So the
 * durations are recorded in `test/durations.json` (seconds per file, `npm run test:durations`
 * after a whole run writes them from that cache). A file not recorded yet goes first: a new
 * suite may be a long one, and a short one costs the tail nothing at the start.
 */
export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = readDurations();
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) => recorded[relative(root, spec.moduleId)];
    return [...files].sort((a, b) => {
      const [sa, sb] = [seconds(a), seconds(b)];
      if (sa === undefined || sb === undefined) return sa === undefined ? (sb === undefined ? 0 : -1) : 1;
      return sb - sa;
    });
  }
}

function readDurations(): Record<string, number> {
  try {
    const parsed = JSON.parse(readFileSync(DURATIONS, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
    );
  } catch {
    // No record (or a broken one): every file is unknown, in the order Vitest found them.
    return {};
  }
}
