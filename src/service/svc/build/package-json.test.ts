import { describe, expect, it } from 'vitest';
import { cliPackageJson, npmVersionOf } from './package-json.ts';

describe('npmVersionOf', () => {
  it.each([
    ['v1.2.3', '1.2.3'],
    ['1.2.3', '1.2.3'],
    ['v1.2.3-rc.2', '1.2.3-rc.2'],
    ['v2.0.0-beta.1', '2.0.0-beta.1'],
    ['v1.2.3-4-gabcdef0', '1.2.4-dev.4.gabcdef0'],
    ['v2.0.0-rc.1-4-gabcdef0-dirty', '2.0.0-rc.1.dev.4.gabcdef0.dirty'],
    ['abcdef0-dirty', '0.0.0-dev.abcdef0-dirty'],
    ['0123456', '0.0.0-dev.x0123456'],
    ['unknown', '0.0.0-dev.unknown'],
  ])('%s -> %s', (version, npm) => {
    expect(npmVersionOf(version)).toBe(npm);
  });

  it('keeps the real version beside the npm one', () => {
    expect(cliPackageJson('v1.2.3-4-gabcdef0')).toMatchObject({
      name: 'service-cli',
      serviceVersion: 'v1.2.3-4-gabcdef0',
      bin: { svc: 'svc.js' },
    });
    expect(cliPackageJson('v1')).not.toHaveProperty('dependencies');
  });
});
