import { describe, expect, it } from 'vitest';
import { decideRecovery, type JournalWrite } from './journal-recovery.ts';

const A = `sha256:${'a'.repeat(64)}`;
const B = `sha256:${'b'.repeat(64)}`;
const OLD = `sha256:${'0'.repeat(64)}`;
const OTHER = `sha256:${'f'.repeat(64)}`;

const version = (artifact: string, to: string): JournalWrite => ({
  artifact,
  repository: `service-${artifact}`,
  tag: 'v1.2.0',
  kind: 'version',
  from: null,
  to,
});
const latest = (artifact: string, to: string): JournalWrite => ({
  ...version(artifact, to),
  tag: 'latest',
  kind: 'floating',
  from: OLD,
});
const RELEASE = [version('api', A), version('web', B), latest('api', A), latest('web', B)];
const seen = (now: string | null, targetPresent = true) => ({ now, targetPresent });

describe('decideRecovery', () => {
  it('rolls forward when the images are there: the missing version tags are written, latest settled', () => {
    const d = decideRecovery('release', RELEASE, [seen(A), seen(null), seen(OLD), seen(OLD)]);
    expect(d.direction).toBe('forward');
    expect(d.actions).toEqual([{ action: 'write', write: RELEASE[1] }]);
    expect(d.settleLatest).toBe(true);
  });

  it('rolls forward with nothing to write when every tag landed (killed before ending the journal)', () => {
    const d = decideRecovery('release', RELEASE, [seen(A), seen(B), seen(A), seen(B)]);
    expect(d).toMatchObject({ direction: 'forward', actions: [], reason: 'every tag was already written' });
  });

  it('rolls forward before any write too: the promotion was asked for and can be done', () => {
    const d = decideRecovery('rc', [version('api', A), version('web', B)], [seen(null), seen(null)]);
    expect(d.direction).toBe('forward');
    expect(d.actions.map((a) => a.write.artifact)).toEqual(['api', 'web']);
    expect(d.settleLatest).toBe(false);
  });

  it('writes dev (a floating tag of the dev channel) forward, never latest of a release', () => {
    const dev = { ...latest('api', A), tag: 'dev' };
    expect(decideRecovery('dev', [dev], [seen(OLD)]).actions).toEqual([{ action: 'write', write: dev }]);
    expect(decideRecovery('release', [latest('api', A)], [seen(OLD)]).actions).toEqual([]);
  });

  it('rolls back when an image is missing: tags it wrote are removed or put back, latest left to the settle', () => {
    const d = decideRecovery('release', RELEASE, [seen(A), seen(null, false), seen(A), seen(OLD)]);
    expect(d.direction).toBe('back');
    expect(d.actions).toEqual([{ action: 'remove', write: RELEASE[0] }]);
    expect(d.reason).toMatch(/service-web@sha256:bbbb.* missing/);
  });

  it('rolls back when a version tag was taken by another digest, and names it', () => {
    const writes = [version('api', A), version('web', B)];
    const d = decideRecovery('rc', writes, [seen(A), seen(OTHER)]);
    expect(d.direction).toBe('back');
    expect(d.conflicts).toEqual([writes[1]]);
    expect(d.actions).toEqual([{ action: 'remove', write: writes[0] }]);
  });

  it('puts a floating tag back to where it was (dev)', () => {
    const dev = { ...latest('api', A), tag: 'dev' };
    const d = decideRecovery('dev', [version('web', B), dev], [seen(null, false), seen(A)]);
    expect(d.actions).toEqual([{ action: 'restore', write: dev }]);
  });

  it('a floating tag moved by someone else is no conflict', () => {
    const d = decideRecovery('release', RELEASE, [seen(A), seen(B), seen(OTHER), seen(OTHER)]);
    expect(d).toMatchObject({ direction: 'forward', conflicts: [], actions: [] });
  });
});
