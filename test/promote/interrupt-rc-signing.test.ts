import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkImageSignature } from '../../src/signing/image-signature.ts';
import { IMAGES, type SigningProject, signingProject, writeRecord } from '../signing/fixture.ts';
import { leftovers, runSignalled } from './interrupt.ts';

// An rc promotion stopped by SIGINT while it writes its tags (timed from its journal) still signs
// what it tagged: an rc tag is never left unsigned (its release would be refused), and the run
// exits 130 saying it completed the writes. Each case must land within the writes: the journal,
// on disk from before the first tag write until the group (tags and signatures) is over, was
// there when the signal was sent; a run that finished first fails the case, it proves nothing.
type Artifact = keyof typeof IMAGES;
let p: SigningProject;
beforeAll(async () => {
  p = await signingProject();
}, 60_000);
afterAll(async () => {
  await p?.cleanup();
});

describe('SIGINT during an rc promotion', () => {
  it.each([0, 5, 20])('%i ms into the tag writes: tagged on every artifact, and signed', async (atMs) => {
    const rc = `v3.${atMs}.0-rc.1`;
    const built = {} as Record<Artifact, string>;
    for (const a of Object.keys(IMAGES) as Artifact[]) built[a] = await p.push(IMAGES[a]);
    writeRecord(p, rc, 'rc', built);
    const journal = join(p.dir, '.release', 'journal', p.registry.host.replace(/[^A-Za-z0-9._-]+/g, '_'));
    const run = await runSignalled(
      ['promote', '--channel', 'rc', '--json'],
      p.dir,
      { signal: 'SIGINT', atMs, afterJournal: journal },
      p.env,
    );
    console.log(
      `interrupt: rc SIGINT ${atMs} ms into the writes (journal from ${run.journalAtMs} ms): exit ${run.code}, within the writes: ${run.inWrites}`,
    );
    expect(run.inWrites, `the signal landed within the tag writes: ${run.stderr}`).toBe(true);
    expect(run.code, run.stderr).toBe(130);
    expect(JSON.parse(run.stdout).error).toMatchObject({ code: 'INTERRUPTED', stage: 'tags-completed' });
    expect(leftovers(join(p.dir, '.release'))).toEqual([]);
    for (const a of Object.keys(IMAGES) as Artifact[]) {
      expect((await p.store.resolve(IMAGES[a], rc))?.digest, a).toBe(built[a]);
      const check = await checkImageSignature(p.store, p.key.publicKey, {
        repository: IMAGES[a],
        digest: built[a],
      });
      expect(check.status, `${a} signed`).toBe('valid');
    }
  });
});
