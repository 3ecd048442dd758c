import { describe, expect, it } from 'vitest';
import type { RegistryReading } from '../../verify/types.ts';
import { deployedImages } from './deployed-images.ts';
import type { VerifyContext } from './verify-context.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const reading = (artifact: string, source: string, digest: string, role?: string): RegistryReading => ({
  artifact,
  ...(role ? { role } : {}),
  repository: 'acme-app',
  tag: 'v1.3.0',
  store: 'r',
  expected: D1,
  running: [{ source, digest }],
});

/** Only what deployedImages reads of the context: what was probed, the images, the readings. */
const contextWith = (registry: RegistryReading[] | undefined, extraImages = {}) =>
  ({
    probed: { probed: ['api', 'worker'], results: [], digests: [], notChecked: [] },
    options: { images: { api: 'acme-app', worker: 'acme-app', web: 'acme-web' } },
    extraImages,
    ...(registry ? { registry } : {}),
  }) as unknown as VerifyContext;

describe('deployedImages: what signatures and evidence are read for', () => {
  it('reads each digest the roles of one image run once, under the first role that runs it', () => {
    const images = deployedImages(
      contextWith([
        reading('api', 'container a (api)', D1),
        reading('worker', 'container w (worker)', D1),
        reading('worker', 'container s (scheduler)', D2, 'scheduler'),
      ]),
      'v1.3.0',
    );
    expect(images.map((i) => [i.artifact, i.running.map((r) => r.source)])).toEqual([
      ['api', ['container a (api)']],
      ['worker', ['container s (scheduler)']],
    ]);
  });

  it.each([
    ['api alone', [reading('api', 'container a (api)', D1)]],
    [
      'api and worker',
      [reading('api', 'container a (api)', D1), reading('worker', 'container w (worker)', D1)],
    ],
    [
      'api, worker and scheduler',
      [
        reading('api', 'container a (api)', D1),
        reading('worker', 'container w (worker)', D1),
        reading('worker', 'container s (scheduler)', D1, 'scheduler'),
      ],
    ],
  ])('one image run by %s, all on one digest: judged once', (_, readings) => {
    const images = deployedImages(contextWith(readings), 'v1.3.0');
    expect(images.map((i) => [i.artifact, i.repository, i.running.map((r) => r.digest)])).toEqual([
      ['api', 'acme-app', [D1]],
    ]);
  });

  it('reads the tag of a shared image once when nothing of it is seen running', () => {
    expect(deployedImages(contextWith(undefined), 'v1.3.0')).toEqual([
      { artifact: 'api', repository: 'acme-app', tag: 'v1.3.0', running: [] },
    ]);
  });

  it('leaves the tag out when a role runs a known digest, and keeps images of their own apart', () => {
    const images = deployedImages(
      contextWith([reading('worker', 'container w (worker)', D1)], { migrate: 'acme-migrate' }),
      'v1.3.0',
    );
    expect(images.map((i) => [i.artifact, i.repository, i.running.length])).toEqual([
      ['worker', 'acme-app', 1],
      ['migrate', 'acme-migrate', 0],
    ]);
  });
});
