import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { archiveSignatureValid, signArchive } from './archive-signature.ts';

describe('signArchive', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const bytes = Buffer.from('an archive');

  it('is deterministic: the same key and bytes always give the same signature (node:crypto does not)', () => {
    const a = signArchive(bytes, privateKey);
    expect(signArchive(bytes, privateKey)).toBe(a);
    expect(signArchive(Buffer.from('another archive'), privateKey)).not.toBe(a);
    const random = () => sign('sha256', bytes, privateKey).toString('base64');
    expect(random()).not.toBe(random());
  });

  it('gives the DER form node:crypto verifies, as svc update does', () => {
    const signature = signArchive(bytes, privateKey);
    expect(archiveSignatureValid(bytes, signature, publicKey)).toBe(true);
    expect(
      archiveSignatureValid(bytes, signature, publicKey.export({ type: 'spki', format: 'pem' }) as string),
    ).toBe(true);
    expect(archiveSignatureValid(Buffer.from('tampered'), signature, publicKey)).toBe(false);
    expect(archiveSignatureValid(bytes, signature, other.publicKey)).toBe(false);
  });

  it('answers false for malformed signatures and keys, and refuses a key of another curve', () => {
    expect(archiveSignatureValid(bytes, '', publicKey)).toBe(false);
    expect(archiveSignatureValid(bytes, '!!not base64!!', publicKey)).toBe(false);
    expect(archiveSignatureValid(bytes, signArchive(bytes, privateKey), 'not a pem')).toBe(false);
    const ed = generateKeyPairSync('ed25519');
    expect(() => signArchive(bytes, ed.privateKey)).toThrow(/ECDSA P-256/);
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    expect(() => signArchive(bytes, k1.privateKey)).toThrow(/ECDSA P-256/);
  });
});
