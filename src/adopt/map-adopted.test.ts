import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import { isReleaseError } from '../errors.ts';
import type { AdoptSource } from './adopt-sources.ts';
import { mapAdopted } from './map-adopted.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

// A pnpm monorepo's shape: one production Dockerfile, targets backend, app, admin and an
// all-in-one image, pushed to Docker Hub under an organisation, per platform by digest.
const hub = validateConfig(
  {
    registry: 'docker.io/acme',
    artifacts: {
      api: { image: 'acme-backend' },
      web: { image: 'acme-frontend' },
      admin: { image: 'acme-admin' },
      aio: { image: 'acme-aio' },
      worker: false,
      cli: false,
    },
  },
  'test',
);
const ghcr = validateConfig(
  {
    registry: 'ghcr.io/acme',
    artifacts: { api: { image: 'api' }, scheduler: { role: 'worker', image: 'api', command: ['beat'] } },
  },
  'test',
);

const file = (
  names: string[],
  digest = D1,
  extra: Partial<AdoptSource> = {},
  target?: string,
): AdoptSource => ({
  origin: { kind: target ? 'bake-metadata' : 'buildx-metadata', file: 'm.json', sha256: 'f'.repeat(64) },
  image: { digest, names, ...(target ? { target } : {}) },
  ...extra,
});
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (isReleaseError(error))
      return { code: error.code, exit: error.exitCode, text: `${error.message} ${error.hint}` };
    throw error;
  }
  throw new Error('not refused');
};

describe('mapAdopted', () => {
  it.each([
    ['a canonical Docker Hub name of a push by digest', 'docker.io/acme/acme-backend', 'api'],
    [
      'a short Docker Hub name, as imagetools create writes it',
      'acme/acme-frontend@sha256:' + '1'.repeat(64),
      'web',
    ],
    ['the index name Docker gives it', 'index.docker.io/acme/acme-admin:2026.7.0', 'admin'],
    ['one of several tags', 'registry-1.docker.io/acme/acme-aio:latest', 'aio'],
  ])('matches %s', (_what, name, artifact) => {
    expect(mapAdopted(hub, [file([name])]).map((p) => [p.artifact.name, p.matchedBy])).toEqual([
      [artifact, 'image name'],
    ]);
  });

  it('matches a bake target pushed under no name by its name, and keeps the config order', () => {
    const placed = mapAdopted(hub, [file([], D2, {}, 'web'), file(['docker.io/acme/acme-backend:x'])]);
    expect(placed.map((p) => [p.artifact.name, p.matchedBy])).toEqual([
      ['api', 'image name'],
      ['web', 'bake target'],
    ]);
  });

  it('adopts the image of a role given by name (the scheduler runs the api image)', () => {
    const [placed] = mapAdopted(ghcr, [file([], D1, { artifact: 'scheduler' })]);
    expect(placed).toMatchObject({
      artifact: { name: 'api' },
      roleGiven: 'scheduler',
      matchedBy: 'artifact',
    });
  });

  it("matches one push to two registries (GHCR and a Docker Hub mirror) by the config's, named or not", () => {
    const names = ['umamisoftware/umami:2.19.0', 'ghcr.io/acme/api:2.19.0', 'ghcr.io/acme/api:latest'];
    expect(mapAdopted(ghcr, [file(names)]).map((p) => p.artifact.name)).toEqual(['api']);
    expect(mapAdopted(ghcr, [file(names, D1, { artifact: 'api' })]).map((p) => p.matchedBy)).toEqual([
      'artifact',
    ]);
  });

  it('takes the same digest twice once (a bake file and a pair of one image)', () => {
    expect(mapAdopted(ghcr, [file(['ghcr.io/acme/api:1']), file(['ghcr.io/acme/api@' + D1])])).toHaveLength(
      1,
    );
  });

  it('refuses two platform images for one artifact, pointing at the index (per-platform jobs)', () => {
    const r = refusal(() =>
      mapAdopted(hub, [file(['docker.io/acme/acme-backend'], D1), file(['docker.io/acme/acme-backend'], D2)]),
    );
    expect(r).toMatchObject({ code: 'ADOPT_TWICE', exit: 2 });
    expect(r.text).toMatch(/the index of a multi-platform build/);
  });

  it.each([
    [
      'a repository of no artifact',
      [file(['ghcr.io/acme/other:1'])],
      'ADOPT_NO_ARTIFACT',
      /matches no artifact.*ghcr\.io\/acme\/other/,
    ],
    [
      'the right name in another registry',
      [file(['quay.io/acme/api:1'])],
      'ADOPT_NO_ARTIFACT',
      /ghcr\.io\/acme\/api/,
    ],
    [
      'an artifact the config does not have',
      [file([], D1, { artifact: 'nope' })],
      'ADOPT_NO_ARTIFACT',
      /no image artifact "nope"/,
    ],
    [
      'an artifact given for another repository',
      [file(['ghcr.io/acme/web:1'], D1, { artifact: 'api' })],
      'ADOPT_NAME_MISMATCH',
      /given as api, but pushed to/,
    ],
    [
      'no name and a target of no artifact',
      [file([], D1, {}, 'lint')],
      'ADOPT_NO_ARTIFACT',
      /pushed under no name/,
    ],
  ])('refuses %s (exit 2)', (_what, sources, code, text) => {
    const r = refusal(() => mapAdopted(ghcr, sources));
    expect(r).toMatchObject({ code, exit: 2 });
    expect(r.text).toMatch(text);
  });
});
