import CycloneDX from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { builderId, provenanceStatement, restampedProvenance } from './provenance.ts';
import { releaseSetStatement } from './release-set.ts';
import { type ImageContents, sbomOf, uuidFromDigest } from './sbom.ts';
import { parseStatement } from './statements.ts';

const D = (c: string) => `sha256:${c.repeat(64)}`;
const contents: ImageContents = {
  repository: 'acme-api',
  digest: D('a'),
  version: 'v1.0.0',
  base: { reference: 'oci-layout:.release/base/node:20', digest: D('b') },
  files: [
    { path: '/srv/z.mjs', sha256: 'c'.repeat(64) },
    { path: '/srv/a.mjs', sha256: 'd'.repeat(64) },
  ],
  packages: [
    {
      name: '@scope/x',
      version: '1.0.0',
      license: 'MIT OR Apache-2.0',
      path: '/srv/node_modules/@scope/x/package.json',
    },
    {
      name: 'left-pad',
      version: '1.3.0',
      license: 'Custom licence',
      path: '/srv/node_modules/left-pad/package.json',
    },
  ],
};
const tool = { name: 'service-release', version: '0.1.0' };

describe('sbomOf', () => {
  it('is CycloneDX 1.6 the library validates, with no clock and a serial from the digest', async () => {
    const sbom = sbomOf(contents, tool);
    const validator = new CycloneDX.Validation.JsonStrictValidator(CycloneDX.Spec.Version.v1dot6);
    expect(await validator.validate(sbom)).toBeNull();
    const parsed = JSON.parse(sbom);
    expect(parsed.metadata.timestamp).toBeUndefined();
    expect(parsed.serialNumber).toBe(`urn:uuid:${uuidFromDigest(D('a'))}`);
    expect(uuidFromDigest(D('a'))).not.toBe(uuidFromDigest(D('e')));
  });

  it('gives the same bytes for the same contents in any order', () => {
    const shuffled = {
      ...contents,
      files: [...contents.files].reverse(),
      packages: [...contents.packages].reverse(),
    };
    expect(sbomOf(shuffled, tool)).toBe(sbomOf(contents, tool));
  });

  it('keeps licences it cannot name as SPDX ids as expressions or names', () => {
    const parsed = JSON.parse(sbomOf(contents, tool));
    const byName = Object.fromEntries(parsed.components.map((c: { name: string }) => [c.name, c]));
    expect(byName['x'].licenses).toEqual([{ expression: 'MIT OR Apache-2.0' }]);
    expect(byName['left-pad'].licenses).toEqual([{ license: { name: 'Custom licence' } }]);
  });
});

describe('provenance', () => {
  const input = {
    repository: 'acme-api',
    digest: D('a'),
    artifact: 'api',
    version: 'v1.0.0-rc.1',
    engine: 'oci' as const,
    recipe: { files: [] },
    commit: 'f'.repeat(40),
    source: 'https://git.example/acme',
    base: { reference: 'oci-layout:.release/base/node:20', digest: D('b') },
    epoch: 1_700_000_000,
    builder: { id: 'https://ci.example/b', toolVersion: '0.1.0' },
  };

  it('takes its times from the commit and names the commit and base', () => {
    const statement = parseStatement(provenanceStatement(input));
    if (typeof statement === 'string') throw new Error(statement);
    const predicate = statement.predicate as {
      buildDefinition: { resolvedDependencies: { uri: string; digest: Record<string, string> }[] };
      runDetails: { metadata: { startedOn: string } };
    };
    expect(predicate.runDetails.metadata.startedOn).toBe('2023-11-14T22:13:20Z');
    expect(predicate.buildDefinition.resolvedDependencies.map((d) => d.digest)).toEqual([
      { gitCommit: 'f'.repeat(40) },
      { sha256: 'b'.repeat(64) },
    ]);
    expect(provenanceStatement(input).equals(provenanceStatement(input))).toBe(true);
  });

  it('for a re-stamped release, adds the rc digest and the new version', () => {
    const rc = parseStatement(provenanceStatement(input)) as { predicate: Record<string, unknown> };
    const release = JSON.parse(
      restampedProvenance(rc.predicate, {
        repository: 'acme-api',
        digest: D('e'),
        version: 'v1.0.0',
        rcDigest: D('a'),
      }).toString(),
    );
    expect(release.subject[0].digest.sha256).toBe('e'.repeat(64));
    expect(release.predicate.buildDefinition.externalParameters.version).toBe('v1.0.0');
    expect(release.predicate.buildDefinition.resolvedDependencies.at(-1).digest).toEqual({
      sha256: 'a'.repeat(64),
    });
  });

  it('names the CI workflow as builder, never a run id', () => {
    expect(
      builderId(
        {
          GITHUB_ACTIONS: 'true',
          GITHUB_SERVER_URL: 'https://github.com',
          GITHUB_WORKFLOW_REF: 'o/r/.github/workflows/release.yml@refs/tags/v1',
        },
        'h',
      ),
    ).toBe('https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1');
    expect(
      builderId({ GITLAB_CI: 'true', CI_SERVER_URL: 'https://gitlab.example', CI_PROJECT_PATH: 'g/p' }, 'h'),
    ).toBe('https://gitlab.example/g/p/-/ci');
    expect(builderId({}, 'build-host')).toBe('https://service-release.dev/builders/host/build-host');
  });
});

describe('releaseSetStatement', () => {
  const images = [
    { artifact: 'worker', repository: 'w', digest: D('2'), children: [D('4'), D('3')] },
    { artifact: 'api', repository: 'a', digest: D('1'), children: [], madeFrom: D('9') },
  ];
  it('names images, children, archive and package, sorted, the same for any input order', () => {
    const input = {
      version: 'v1.0.0',
      channel: 'release' as const,
      commit: 'f'.repeat(40),
      images,
      archive: { name: 'cli.tar.gz', sha256: '5'.repeat(64) },
      npmPackage: {
        name: '@acme/cli',
        version: '1.0.0',
        integrity: `sha512-${Buffer.alloc(64, 1).toString('base64')}`,
      },
    };
    const statement = JSON.parse(releaseSetStatement(input).toString());
    expect(statement.subject.map((s: { name: string }) => s.name)).toEqual([
      'a',
      'w',
      'w',
      'w',
      'cli.tar.gz',
      'pkg:npm/%40acme/cli@1.0.0',
    ]);
    expect(statement.subject[5].digest).toEqual({ sha512: '01'.repeat(64) });
    expect(statement.predicate.artifacts.api.madeFrom).toBe(D('9'));
    expect(
      releaseSetStatement({ ...input, images: [...images].reverse() }).equals(releaseSetStatement(input)),
    ).toBe(true);
  });
});
