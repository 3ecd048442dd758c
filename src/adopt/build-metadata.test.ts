import { describe, expect, it } from 'vitest';
import { parseBuildMetadata } from './build-metadata.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const INDEX = 'application/vnd.oci.image.index.v1+json';

/** What `docker buildx build --push --metadata-file` writes (docker/buildx's shape). */
const build = (digest: string, extra: Record<string, unknown> = {}) => ({
  'buildx.build.provenance': {},
  'buildx.build.ref': 'builder/builder0/abc',
  'containerimage.config.digest': D2,
  'containerimage.descriptor': { digest, mediaType: INDEX, size: 856, annotations: { 'config.digest': D2 } },
  'containerimage.digest': digest,
  'image.name': 'ghcr.io/acme/api:2026.7.0,ghcr.io/acme/api:latest',
  ...extra,
});

describe('parseBuildMetadata', () => {
  it('reads one build: the digest, every name of image.name, the build reference', () => {
    expect(parseBuildMetadata(JSON.stringify(build(D1)))).toEqual({
      kind: 'buildx-metadata',
      withoutImage: [],
      images: [
        {
          digest: D1,
          names: ['ghcr.io/acme/api:2026.7.0', 'ghcr.io/acme/api:latest'],
          mediaType: INDEX,
          buildRef: 'builder/builder0/abc',
          buildxProvenance: true,
        },
      ],
    });
  });

  it('reads a push by digest with a canonical name (no tag), as per-platform CI jobs push', () => {
    const parsed = parseBuildMetadata(
      JSON.stringify(
        build(D1, { 'image.name': 'docker.io/acme/backend', 'buildx.build.provenance': undefined }),
      ),
    );
    expect(typeof parsed !== 'string' && parsed.images[0]!.names).toEqual(['docker.io/acme/backend']);
  });

  it('reads a bake file: one image per target, buildx.build.warnings and targets that pushed nothing left out', () => {
    const parsed = parseBuildMetadata(
      JSON.stringify({
        'buildx.build.warnings': [{ vertex: 'x', level: 1 }],
        backend: build(D1, { 'image.name': 'ghcr.io/acme/backend:ci' }),
        app: build(D2, { 'image.name': 'ghcr.io/acme/app:ci' }),
        lint: { 'buildx.build.ref': 'builder/builder0/lint' },
      }),
    );
    expect(parsed).toMatchObject({
      kind: 'bake-metadata',
      withoutImage: ['lint'],
      images: [
        { target: 'backend', digest: D1 },
        { target: 'app', digest: D2 },
      ],
    });
  });

  // Shapes read in docker/buildx's own tests and real CI pipelines: a build of two platforms
  // records one provenance per platform (buildx.build.provenance/<platform>) and no plain one; an
  // older buildx adds containerimage.buildinfo; a bake run whose targets push by digest to three
  // registries at once (name-canonical, several names, no tag) and also write a local output; a
  // `--call check` target that only holds its lint result.
  it('reads per-platform provenance keys, several registries by digest, and a check-only target', () => {
    const { 'buildx.build.provenance': _, ...noPlain } = build(D1, {
      'buildx.build.provenance/linux/amd64': { buildType: 'https://mobyproject.org/buildkit@v1' },
      'buildx.build.provenance/linux/arm64': { buildType: 'https://mobyproject.org/buildkit@v1' },
      'containerimage.buildinfo': 'eyJmcm9udGVuZCI6ImRvY2tlcmZpbGUudjAifQ==',
    });
    expect(parseBuildMetadata(JSON.stringify(noPlain))).toMatchObject({
      images: [{ digest: D1, mediaType: INDEX, buildxProvenance: true }],
    });
    // Disabled (BUILDX_METADATA_PROVENANCE=disabled) or null: none.
    const disabled = parseBuildMetadata(
      JSON.stringify(
        build(D1, { 'buildx.build.provenance': undefined, 'buildx.build.provenance/linux/amd64': null }),
      ),
    );
    expect(typeof disabled !== 'string' && disabled.images[0]!.buildxProvenance).toBeUndefined();

    const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
    const bake = parseBuildMetadata(
      JSON.stringify({
        'buildx.build.warnings': [],
        'debian-multi': build(D2, {
          'containerimage.descriptor': {
            digest: D2,
            mediaType: MANIFEST,
            size: 1234,
            platform: { architecture: 'arm', os: 'linux', variant: 'v7' },
          },
          'image.name': 'ghcr.io/acme/server,docker.io/acme/server,quay.io/acme/server',
        }),
        lint: { 'result.json': { warnings: [] } },
      }),
    );
    expect(bake).toEqual({
      kind: 'bake-metadata',
      withoutImage: ['lint'],
      images: [
        {
          target: 'debian-multi',
          digest: D2,
          mediaType: MANIFEST,
          names: ['ghcr.io/acme/server', 'docker.io/acme/server', 'quay.io/acme/server'],
          buildRef: 'builder/builder0/abc',
          buildxProvenance: true,
        },
      ],
    });
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['null', 'null', /JSON object/],
    ['an array', '[{}]', /JSON object/],
    ['no digest anywhere', '{"buildx.build.ref":"x"}', /no containerimage\.digest and no bake target/],
    [
      'a digest that is not sha256',
      JSON.stringify({ 'containerimage.digest': 'sha512:abc' }),
      /not a sha256/,
    ],
    [
      'a digest with a path in it',
      JSON.stringify({ 'containerimage.digest': `sha256:../${'a'.repeat(61)}` }),
      /not a sha256/,
    ],
    [
      'a descriptor naming another digest',
      JSON.stringify(build(D1, { 'containerimage.descriptor': { digest: D2 } })),
      /names sha256:2/,
    ],
    [
      'a descriptor that is a string',
      JSON.stringify(build(D1, { 'containerimage.descriptor': 'x' })),
      /not an object/,
    ],
    [
      'an artifact media type',
      JSON.stringify(
        build(D1, {
          'containerimage.descriptor': {
            digest: D1,
            mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
          },
        }),
      ),
      /not an image or an index/,
    ],
    ['image.name a list', JSON.stringify(build(D1, { 'image.name': ['a'] })), /not a string/],
    [
      'image.name with a control character',
      JSON.stringify(build(D1, { 'image.name': 'ghcr.io/a\u001b[2J' })),
      /not an image name/,
    ],
    ['a bake target that is a number', JSON.stringify({ api: 5 }), /"api" is not an object/],
    [
      'a bake target with a bad digest',
      JSON.stringify({ api: { 'containerimage.digest': 'x' } }),
      /bake target "api": /,
    ],
  ])('refuses %s', (_what, text, reason) => {
    const parsed = parseBuildMetadata(text);
    expect(typeof parsed).toBe('string');
    expect(parsed).toMatch(reason);
  });
});
