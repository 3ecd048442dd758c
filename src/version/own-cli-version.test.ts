import { describe, expect, it } from 'vitest';
import { compareVersionStrings } from './compare.ts';
import { ownPackageVersion } from './own-cli-version.ts';

describe('ownPackageVersion: a CLI on its own line, on the service channel', () => {
  it.each([
    ['0.31.3', '2026.7.0', '0.31.3'],
    ['0.31.3', 'v2026.7.0', '0.31.3'],
    ['0.31.3', '2026.7.0-rc.2', '0.31.3-rc.2'],
    ['0.31.3-rc.1', '2026.7.0', '0.31.3'],
    ['0.31.3', '2026.7.0-beta.1', '0.31.3-beta.1'],
    ['0.31.3', '2026.6.0-3-gabc1234', '0.31.3-dev.3.gabc1234'],
    ['0.31.3', '2026.6.0-3-gabc1234-dirty', '0.31.3-dev.3.gabc1234.dirty'],
    ['0.31.3', 'abc1234', '0.31.3-dev.abc1234'],
    ['0.31.3', 'unknown', '0.31.3-dev.unknown'],
    ['1.0.0', '2026.7.0-dirty', '1.0.0-dev.dirty'],
  ])('%s at service %s -> %s', (declared, service, npm) =>
    expect(ownPackageVersion(declared, service)).toBe(npm),
  );

  it('is undefined for a declared version without a core', () => {
    expect(ownPackageVersion('latest', '2026.7.0')).toBeUndefined();
  });

  it('orders as npm does: dev and rc before the release of the same core', () => {
    const dev = ownPackageVersion('0.31.3', '2026.6.0-3-gabc1234')!;
    const rc = ownPackageVersion('0.31.3', '2026.7.0-rc.1')!;
    expect(compareVersionStrings(rc, '0.31.3')).toBeLessThan(0);
    expect(compareVersionStrings(dev, '0.31.3')).toBeLessThan(0);
  });
});
