import { describe, expect, it } from 'vitest';
import { cliMinimumRaise } from './cli-minimum.ts';

const input = { tag: 'v2.0.0', cliPackage: 'service-cli' };

describe('cliMinimumRaise', () => {
  it('names the rise and the pinned install command', () => {
    expect(cliMinimumRaise({ ...input, current: '1.0.0', target: '1.10.0' })).toEqual({
      current: '1.0.0',
      target: '1.10.0',
      message: 'v2.0.0 raises min_cli_version from 1.0.0 to 1.10.0: every svc below 1.10.0 will be blocked',
      install: 'npm install -g service-cli@2.0.0',
    });
  });

  it('says nothing when it stays, falls, or either side is unknown or not X.Y.Z', () => {
    expect(cliMinimumRaise({ ...input, current: '1.2.0', target: '1.2.0' })).toBeUndefined();
    expect(cliMinimumRaise({ ...input, current: '1.2.0', target: '1.1.9' })).toBeUndefined();
    expect(cliMinimumRaise({ ...input, current: undefined, target: '2.0.0' })).toBeUndefined();
    expect(cliMinimumRaise({ ...input, current: '1.0.0', target: undefined })).toBeUndefined();
    expect(cliMinimumRaise({ ...input, current: '1.0', target: '2.0.0' })).toBeUndefined();
  });
});
