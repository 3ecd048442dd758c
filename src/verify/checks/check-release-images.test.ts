import { describe, expect, it } from 'vitest';
import { checkReleaseImages, type ReleaseImageReading } from './check-release-images.ts';

const D = `sha256:${'1'.repeat(64)}`;
const reading = (over: Partial<ReleaseImageReading>): ReleaseImageReading => ({
  artifact: 'worker',
  roles: ['worker', 'scheduler'],
  repository: 'acme-worker',
  tag: 'v1.4.0',
  store: '127.0.0.1:5000/acme',
  digest: D,
  version: 'v1.4.0',
  ...over,
});

describe('checkReleaseImages', () => {
  it.each([
    ['the tag, as written', {}, []],
    ['the other spelling of the tag', { version: '1.4.0' }, []],
    ['a CalVer tag without a v', { tag: '2026.7.0', version: '2026.7.0' }, []],
    ['another version', { version: 'v1.4.0-rc.1' }, [['IMAGE_VERSION_MISMATCH', 'drift']]],
    ['a dirty build of the tag', { version: 'v1.4.0-dirty' }, [['IMAGE_VERSION_MISMATCH', 'drift']]],
    ['no version at all', { version: undefined }, [['IMAGE_VERSION_UNKNOWN', 'notice']]],
    ['platforms that disagree', { platformsDisagree: true }, [['IMAGE_VERSION_MISMATCH', 'drift']]],
    ['a tag missing', { digest: undefined, version: undefined }, [['REGISTRY_TAG_MISSING', 'drift']]],
    [
      'a store that could not be read',
      { digest: undefined, version: undefined, error: 'connect ECONNREFUSED' },
      [['REGISTRY_UNREACHABLE', 'unreachable']],
    ],
  ] as const)('an image stating %s', (_, over, expected) => {
    const findings = checkReleaseImages([reading(over as Partial<ReleaseImageReading>)]);
    expect(findings.map((f) => [f.code, f.severity])).toEqual(expected);
    for (const f of findings)
      expect(f).toMatchObject({ artifact: 'worker', source: expect.stringContaining('acme-worker:') });
  });

  it('names each image of several once, by the artifact that builds it', () => {
    const findings = checkReleaseImages([
      reading({}),
      reading({
        artifact: 'web',
        roles: ['web'],
        repository: 'acme-web',
        digest: undefined,
        version: undefined,
      }),
    ]);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('acme-web:v1.4.0 is not in 127.0.0.1:5000/acme');
  });
});
