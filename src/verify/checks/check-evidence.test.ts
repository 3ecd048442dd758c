import { describe, expect, it } from 'vitest';
import type { EvidenceReading } from '../types.ts';
import { checkEvidence } from './check-evidence.ts';

const valid = { status: 'valid', reason: 'signed' } as const;
const set = {
  version: 'v1.0.0',
  artifacts: {
    api: { repository: 'acme-api', digest: 'sha256:a' },
    worker: { repository: 'acme-worker', digest: 'sha256:w', children: ['sha256:w1'] },
  },
  hasArchive: true,
};
const reading = (over: Partial<EvidenceReading>): EvidenceReading => ({
  artifact: 'api',
  repository: 'acme-api',
  digest: 'sha256:a',
  of: 'acme-api:v1.0.0',
  sbom: valid,
  provenance: valid,
  releaseSet: set,
  ...over,
});
/** An image of the config: the artifact that builds it, its repository, the roles that run it. */
const image = (artifact: string, repository: string, ...roles: string[]) => ({
  artifact,
  repository,
  roles: [artifact, ...roles],
});
const expected = { images: [image('api', 'acme-api'), image('worker', 'acme-worker')], cli: true };

describe('checkEvidence', () => {
  it('finds nothing when every digest is attested and in a complete set', () => {
    const readings = [
      reading({}),
      reading({ artifact: 'worker', repository: 'acme-worker', digest: 'sha256:w1' }),
    ];
    expect(checkEvidence(readings, expected, true)).toEqual([]);
  });

  it('a missing SBOM is a notice, drift when attestations are required', () => {
    const readings = [reading({ sbom: { status: 'missing', reason: 'no SBOM is attached' } })];
    expect(checkEvidence(readings, expected, false).map((f) => [f.code, f.severity])).toEqual([
      ['EVIDENCE_MISSING', 'notice'],
    ]);
    expect(checkEvidence(readings, expected, true).map((f) => [f.code, f.severity])).toEqual([
      ['EVIDENCE_MISSING', 'drift'],
    ]);
  });

  it('a deployed digest the set does not name is drift, even when not required', () => {
    const readings = [
      reading({}),
      reading({ artifact: 'worker', repository: 'acme-worker', digest: 'sha256:x', releaseSet: undefined }),
    ];
    const findings = checkEvidence(readings, expected, false);
    expect(findings.map((f) => [f.code, f.severity, f.artifact])).toEqual([
      ['RELEASE_SET_MISMATCH', 'drift', 'worker'],
    ]);
    expect(findings[0]!.message).toContain('it names sha256:w');
  });

  it('a set that leaves out an artifact of the config is drift', () => {
    const findings = checkEvidence(
      [reading({})],
      { images: [...expected.images, image('web', 'acme-web')], cli: true },
      false,
    );
    expect(findings.map((f) => [f.code, f.severity, f.message])).toEqual([
      ['RELEASE_SET_INCOMPLETE', 'drift', 'the release set of v1.0.0 leaves out web'],
    ]);
  });

  // Roles of one image are one image: the set names it once, and that is whole.
  const oneImage = {
    version: 'v2.0.0',
    artifacts: { api: { repository: 'acme-app', digest: 'sha256:a' } },
    hasArchive: true,
  };
  const inSet = (
    releaseSet: NonNullable<EvidenceReading['releaseSet']>,
    images: ReturnType<typeof image>[],
  ) =>
    checkEvidence([reading({ repository: 'acme-app', releaseSet })], { images, cli: false }, true).map(
      (f) => f.message,
    );
  it.each([
    ['one image, one role', [image('api', 'acme-app')]],
    ['one image, two roles', [image('api', 'acme-app', 'worker')]],
    ['one image, three roles', [image('api', 'acme-app', 'worker', 'scheduler')]],
    // A config that now builds the image under another of its roles still finds it in the set.
    ['the image built under another role', [image('worker', 'acme-app', 'api', 'scheduler')]],
    ['a web client and a job of one image', [image('api', 'acme-app', 'migrate')]],
  ])('%s named once in the set is whole', (_, images) => {
    expect(inSet(oneImage, images)).toEqual([]);
  });

  it('two images, one shared by two roles: the set must name both images, roles never', () => {
    const twoImages = {
      ...oneImage,
      artifacts: { ...oneImage.artifacts, worker: { repository: 'acme-worker', digest: 'sha256:w' } },
    };
    const images = [image('api', 'acme-app'), image('worker', 'acme-worker', 'scheduler')];
    expect(inSet(twoImages, images)).toEqual([]);
    // A set that names the image by its registry path (`ghcr.io/acme/acme-app`) names it too.
    const byPath = {
      ...oneImage,
      artifacts: { app: { repository: 'ghcr.io/acme/acme-app', digest: 'sha256:a' } },
    };
    const read = reading({ repository: 'ghcr.io/acme/acme-app', releaseSet: byPath });
    expect(checkEvidence([read], { images: [image('api', 'acme-app', 'worker')], cli: false }, true)).toEqual(
      [],
    );
    expect(inSet(oneImage, images)).toEqual([
      'the release set of v2.0.0 leaves out worker (run as worker, scheduler)',
    ]);
  });

  it('no release set at all is a notice, drift when required', () => {
    const readings = [reading({ releaseSet: undefined })];
    expect(checkEvidence(readings, expected, false).map((f) => [f.code, f.severity])).toEqual([
      ['RELEASE_SET_MISSING', 'notice'],
    ]);
    expect(checkEvidence(readings, expected, true).map((f) => f.severity)).toEqual(['drift']);
  });
});
