import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { artifactWithRole, builtImageArtifacts, imageArtifactNames } from './artifacts.ts';
import { validateConfig } from './validate.ts';

// The sample configurations in fixtures/configs: what they mean, and the problems an invalid one
// is reported with (its `.problems.txt`, one `path: message` per line).

const sample = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/configs/${name}`, import.meta.url), 'utf8'));

describe('fixtures/configs', () => {
  it('stamp-only.json names images only: stamp, promote and verify need no recipe', () => {
    const config = validateConfig(sample('stamp-only.json'), 'stamp-only.json');
    expect(imageArtifactNames(config)).toEqual(['api', 'worker', 'web']);
    expect(artifactWithRole(config, 'worker')?.image).toBe('acme-worker');
  });

  it('fleet.json lists deployments for verify --all', () => {
    expect(validateConfig(sample('fleet.json'), 'fleet.json').deployments.map((d) => d.name)).toEqual([
      'eu',
      'us',
    ]);
  });

  it('no-worker.json gives the api role to another key and drops the worker', () => {
    const config = validateConfig(sample('no-worker.json'), 'no-worker.json');
    expect(imageArtifactNames(config)).toEqual(['backend', 'web']);
  });

  it('one-image.json runs api, worker and scheduler from one image, with its own version names', () => {
    const config = validateConfig(sample('one-image.json'), 'one-image.json');
    expect(imageArtifactNames(config)).toEqual(['api', 'worker', 'scheduler', 'web']);
    expect(builtImageArtifacts(config).map((a) => a.name)).toEqual(['api', 'web']);
    expect(config.versionVariables).toEqual({ server: ['ACME_VERSION'], client: ['VITE_ACME_VERSION'] });
  });

  it('invalid.json is refused with every problem at once', () => {
    let error: unknown;
    try {
      validateConfig(sample('invalid.json'), 'invalid.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const expected = readFileSync(
      new URL('../../fixtures/configs/invalid.problems.txt', import.meta.url),
      'utf8',
    )
      .trim()
      .split('\n');
    expect([...(error as ConfigError).problems].sort()).toEqual([...expected].sort());
  });
});
