// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ }} in these strings is GitHub's
import { describe, expect, it } from 'vitest';
import { readGithubWorkflow } from './ci/github-workflows.ts';
import { existingPipelineWarnings } from './existing-pipelines.ts';
import { matchesGithubFilters, tagScheme } from './tag-scheme.ts';

// The repository's own workflow, read by the workflow reader, against the pipeline init writes:
// warned about when it pushes the same images or moves latest on the same tags (or a GitHub
// release), with what to change there; left alone otherwise.

function workflow(on: string, tags: string, push = 'true'): string {
  return `on:\n${on}\njobs:\n  images:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: docker/build-push-action@v6\n        with:\n          context: .\n          push: ${push}\n          tags: ${tags}\n`;
}

const IMAGES = ['ghcr.io/acme/acme-backend', 'ghcr.io/acme/acme-app'];
const CALVER = tagScheme(['2026.6.0']);
const V = tagScheme(['v1.2.0']);

describe('existingPipelineWarnings', () => {
  it.each([
    [
      'CalVer tags, same image and latest',
      "  push:\n    tags: ['*.*.*']",
      'ghcr.io/acme/acme-backend:latest',
      CALVER,
      /pushes ghcr\.io\/acme\/acme-backend and moves :latest on tags '\*\.\*\.\*'/,
    ],
    [
      'v tags, same image, a version tag only',
      "  push:\n    tags: ['v*']",
      'ghcr.io/acme/acme-app:${{ github.ref_name }}',
      V,
      /pushes ghcr\.io\/acme\/acme-app on tags 'v\*' \(v1\.2\.0, v1\.2\.0-rc\.1\)/,
    ],
    [
      'a GitHub release, another image that moves latest',
      '  release:\n    types: [published]',
      'docker.io/acme/other:latest',
      V,
      /moves :latest on a GitHub release/,
    ],
    [
      'an image named through a secret',
      "  push:\n    tags: ['v*']",
      '${{ secrets.REGISTRY }}/acme-backend:${{ github.ref_name }}',
      V,
      /pushes .*acme-backend/,
    ],
  ])('warns: %s', (_, on, tags, scheme, pattern) => {
    const read = readGithubWorkflow('.github/workflows/docker.yml', workflow(on, tags));
    const warnings = existingPipelineWarnings([read], IMAGES, scheme, '.github/workflows/release.yml');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.path).toBe('.github/workflows/docker.yml');
    expect(warnings[0]!.text).toMatch(pattern);
    expect(warnings[0]!.text).toContain('Change it there');
  });

  it.each([
    ['tags of the other scheme', "  push:\n    tags: ['v*']", 'ghcr.io/acme/acme-backend:latest', CALVER],
    ['pushes nothing', "  push:\n    tags: ['*.*.*']", 'ghcr.io/acme/acme-backend:latest', CALVER, 'false'],
    [
      'another image, no latest, on the same tags',
      "  push:\n    tags: ['v*']",
      'ghcr.io/acme/docs:${{ github.ref_name }}',
      V,
    ],
    ['branches only', '  push:\n    branches: [main]', 'ghcr.io/acme/acme-backend:latest', V],
  ])('leaves alone: %s', (_, on, tags, scheme, push = 'true') => {
    const read = readGithubWorkflow('.github/workflows/docker.yml', workflow(on, tags, push));
    expect(existingPipelineWarnings([read], IMAGES, scheme, '.github/workflows/release.yml')).toEqual([]);
  });

  it('never warns about the pipeline init writes itself', () => {
    const read = readGithubWorkflow(
      '.github/workflows/release.yml',
      workflow("  push:\n    tags: ['v*']", 'ghcr.io/acme/acme-app:latest'),
    );
    expect(existingPipelineWarnings([read], IMAGES, V, '.github/workflows/release.yml')).toEqual([]);
  });
});

describe('matchesGithubFilters', () => {
  it.each([
    [['v*'], 'v1.2.0', true],
    [['v*'], '1.2.0', false],
    [['*.*.*'], '2026.6.0', true],
    [['*.*.*'], '2026.6.0-rc.1', true],
    [['*'], 'release/1.0', false],
    [['**'], 'release/1.0', true],
    [['[0-9]+.[0-9]+.[0-9]+'], '1.22.3', true],
    [['[0-9]+.[0-9]+.[0-9]+'], '1.22.3-rc.1', false],
    [['v[12].[0-9]+.[0-9]+'], 'v2.10.0', true],
    [['v[12].[0-9]+.[0-9]+'], 'v3.1.0', false],
    [['v*', '!v*-rc*'], 'v1.0.0-rc.1', false],
    [['v*', '!v*-rc*'], 'v1.0.0', true],
    [['[unclosed'], 'x', false],
    [['*+'], 'x', false],
  ])('%j against %s: %s', (patterns, tag, expected) => {
    expect(matchesGithubFilters(patterns, tag)).toBe(expected);
  });
});
