import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cosignLayersOf,
  cosignTag,
  cosignTagManifest,
  pae,
  parseSimpleSigningPayload,
  referenceNamesRepository,
  simpleSigningPayload,
} from './cosign-formats.ts';

const D = `sha256:${'ab'.repeat(32)}`;

describe('cosign formats', () => {
  it('writes the simple-signing payload byte for byte as cosign marshals it, and reads it back', () => {
    const bytes = simpleSigningPayload({ dockerReference: 'reg:5000/ns/api', digest: D, optional: null });
    expect(bytes.toString()).toBe(
      `{"critical":{"identity":{"docker-reference":"reg:5000/ns/api"},"image":{"docker-manifest-digest":"${D}"},"type":"cosign container image signature"},"optional":null}`,
    );
    expect(parseSimpleSigningPayload(bytes)).toEqual({
      dockerReference: 'reg:5000/ns/api',
      digest: D,
      optional: null,
    });
    expect(cosignTag(D, 'sig')).toBe(`sha256-${'ab'.repeat(32)}.sig`);
  });

  it('refuses payloads that are not cosign image signatures, saying why', () => {
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['null', /not a JSON object/],
      ['{"critical":{"type":"other"}}', /type is not/],
      [
        '{"critical":{"type":"cosign container image signature","image":{"docker-manifest-digest":"sha256:1"}}}',
        /no sha256/,
      ],
      [
        `{"critical":{"type":"cosign container image signature","image":{"docker-manifest-digest":"${D}"}}}`,
        /docker-reference/,
      ],
      [
        `{"critical":{"type":"cosign container image signature","identity":{"docker-reference":"a"},"image":{"docker-manifest-digest":"${D}"}},"optional":[1]}`,
        /optional/,
      ],
    ];
    for (const [text, why] of cases) expect(parseSimpleSigningPayload(Buffer.from(text)), text).toMatch(why);
  });

  it('matches a docker-reference to a repository by its last path segments only', () => {
    expect(referenceNamesRepository('reg:5000/ns/service-api', 'service-api')).toBe(true);
    expect(referenceNamesRepository('service-api', 'service-api')).toBe(true);
    expect(referenceNamesRepository('reg/ns/other-service-api', 'service-api')).toBe(false);
    expect(referenceNamesRepository('reg/service-api/x', 'service-api')).toBe(false);
  });

  it('makes the tag manifest and config as go-containerregistry appends layers, and reads the layers back', () => {
    const layer = { mediaType: 'm', bytes: Buffer.from('x'), annotations: { a: 'b' } };
    const { manifest, config, layers } = cosignTagManifest([layer, layer]);
    const digest = `sha256:${createHash('sha256').update('x').digest('hex')}`;
    expect(JSON.parse(config.toString())).toEqual({
      architecture: '',
      created: '0001-01-01T00:00:00Z',
      history: [{ created: '0001-01-01T00:00:00Z' }, { created: '0001-01-01T00:00:00Z' }],
      os: '',
      rootfs: { type: 'layers', diff_ids: [digest, digest] },
      config: {},
    });
    expect(cosignLayersOf(manifest)).toEqual(layers);
    expect(
      cosignLayersOf(Buffer.from('{"layers":[{"mediaType":"m","digest":"sha256:zz","size":1}]}')),
    ).toMatch(/sha256 digest/);
    const many = JSON.stringify({ layers: Array.from({ length: 1001 }, () => ({})) });
    expect(cosignLayersOf(Buffer.from(many))).toMatch(/over cosign's limit/);
  });

  it("computes DSSE's PAE over the payload's byte length", () => {
    expect(pae('t', Buffer.from('héllo')).toString()).toBe('DSSEv1 1 t 6 héllo');
  });
});
