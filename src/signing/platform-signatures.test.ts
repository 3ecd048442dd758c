import { describe, expect, it } from 'vitest';
import type { SignatureCheck } from './image-signature.ts';
import { combineSetStatus, platformsSigned } from './platform-signatures.ts';

const valid: SignatureCheck = { status: 'valid', reason: 'signed by key abc', keyId: 'abc', signatures: [] };

describe('combineSetStatus', () => {
  it('is valid only when the index and every platform image are', () => {
    const platforms = [
      { platform: 'linux/amd64', check: valid },
      { platform: 'linux/arm64', check: valid },
    ];
    expect(combineSetStatus(valid, platforms)).toMatchObject({ status: 'valid' });
  });

  it('names the platform whose image is unsigned', () => {
    const platforms = [
      { platform: 'linux/amd64', check: valid },
      { platform: 'linux/arm64', check: { status: 'missing' as const, reason: 'no signature is attached' } },
    ];
    expect(combineSetStatus(valid, platforms)).toMatchObject({
      status: 'missing',
      reason: 'the linux/arm64 image: no signature is attached',
    });
  });

  it('an unsigned index decides first, even with signed children', () => {
    const own: SignatureCheck = { status: 'invalid', reason: 'other key', signatures: [] };
    expect(combineSetStatus(own, [{ platform: 'linux/amd64', check: valid }])).toBe(own);
  });

  it('progress names the platforms signed with an index, nothing for a single image', () => {
    expect(platformsSigned([{ platform: 'linux/amd64' }, { platform: 'linux/arm64' }])).toBe(
      ', with linux/amd64, linux/arm64',
    );
    expect(platformsSigned(undefined)).toBe('');
  });
});
