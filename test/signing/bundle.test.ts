import { describe, expect, it } from 'vitest';
import { checkBundle, signClaim } from '../../src/signing/bundle.ts';
import { generateSigningKeys, parsePrivateKey, parsePublicKey } from '../../src/signing/keys.ts';
import { claimOf, PAYLOAD_TYPE, statementFor } from '../../src/signing/statement.ts';

// The signature format without any store: sign a claim with a real key, then check the verdicts
// for the genuine bundle and for each way it can be forged or mangled.

const PASS = 'correct horse battery staple';
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

function newKey() {
  const { privatePem, publicKey } = generateSigningKeys(PASS);
  return { key: parsePrivateKey(privatePem, PASS, 'test.key'), privatePem, publicKey };
}

const mine = newKey();
const theirs = newKey();

type Json = { dsseEnvelope: { payload: string }; verificationMaterial: { publicKey: { hint: string } } };
const edit = (bytes: Uint8Array, change: (json: Json) => void) => {
  const json = JSON.parse(Buffer.from(bytes).toString('utf8')) as Json;
  change(json);
  return Buffer.from(JSON.stringify(json));
};

describe('keys', () => {
  it('writes an encrypted PKCS#8 private key and an SPKI public key that parse back to the same key id', () => {
    expect(mine.privatePem).toContain('-----BEGIN ENCRYPTED PRIVATE KEY-----');
    expect(mine.publicKey.pem).toContain('-----BEGIN PUBLIC KEY-----');
    expect(mine.key.publicKey.keyId).toBe(mine.publicKey.keyId);
    expect(parsePublicKey(mine.publicKey.pem, 'test.pub').keyId).toBe(mine.publicKey.keyId);
    expect(mine.publicKey.keyId).toMatch(/^[0-9a-f]{64}$/);
    expect(theirs.publicKey.keyId).not.toBe(mine.publicKey.keyId);
  });

  it('refuses a wrong or missing passphrase by naming the variable, never the value', () => {
    expect(() => parsePrivateKey(mine.privatePem, 'Xq-not-the-passphrase-93', 'test.key')).toThrow(
      expect.objectContaining({
        code: 'SIGNING_PASSPHRASE_WRONG',
        message: expect.stringContaining('RELEASE_SIGNING_PASSPHRASE'),
      }),
    );
    expect(() => parsePrivateKey(mine.privatePem, undefined, 'test.key')).toThrow(
      expect.objectContaining({ code: 'SIGNING_PASSPHRASE_MISSING' }),
    );
    try {
      parsePrivateKey(mine.privatePem, 'Xq-not-the-passphrase-93', 'test.key');
    } catch (error) {
      expect(JSON.stringify(error) + String(error)).not.toContain('Xq-not-the-passphrase-93');
    }
  });

  it('refuses keys that are not ECDSA P-256', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    expect(() => parsePublicKey(rsa as string, 'rsa.pub')).toThrow(
      expect.objectContaining({ code: 'SIGNING_KEY_TYPE' }),
    );
    expect(() => parsePublicKey('not a key', 'x.pub')).toThrow(
      expect.objectContaining({ code: 'SIGNING_PUBLIC_KEY_UNREADABLE' }),
    );
  });
});

describe('statement', () => {
  it('binds exactly one repository and digest, and reads it back', () => {
    const payload = statementFor({ repository: 'service-api', digest: D1 });
    expect(JSON.parse(payload.toString())).toMatchObject({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ name: 'service-api', digest: { sha256: '1'.repeat(64) } }],
    });
    expect(claimOf(PAYLOAD_TYPE, payload)).toEqual({ repository: 'service-api', digest: D1 });
    expect(claimOf('text/plain', payload)).toMatch(/payload type/);
    const two = JSON.parse(payload.toString());
    two.subject.push({ name: 'service-web', digest: { sha256: '2'.repeat(64) } });
    expect(claimOf(PAYLOAD_TYPE, Buffer.from(JSON.stringify(two)))).toMatch(/2 subjects/);
    expect(() => statementFor({ repository: 'service-api', digest: 'v1.0.0' })).toThrow(
      /not a sha256 digest/,
    );
  });

  it('records what a release rebuilt or re-wrote from its rc, and still reads back as the same claim', () => {
    const reversion = [
      {
        part: 'cli',
        strategy: 'rebuild',
        differs: [{ path: 'acme-1.0.0-rc.1/bin/acme', reason: 'differs in version strings only' }],
      },
    ];
    const payload = statementFor({ repository: 'service-api', digest: D1, madeFrom: D2, reversion });
    expect(JSON.parse(payload.toString()).predicate).toEqual({
      madeFrom: { name: 'service-api', digest: { sha256: D2.slice(7) } },
      reversion,
    });
    expect(claimOf(PAYLOAD_TYPE, payload)).toEqual({ repository: 'service-api', digest: D1, madeFrom: D2 });
  });
});

describe('checkBundle', () => {
  const claim = { repository: 'service-api', digest: D1 };

  it('accepts a genuine bundle: Sigstore v0.3 DSSE with only a key hint (no certificate, no tlog)', async () => {
    const bytes = await signClaim(mine.key, claim);
    const json = JSON.parse(Buffer.from(bytes).toString());
    expect(json.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(json.verificationMaterial.publicKey.hint).toBe(mine.publicKey.keyId);
    expect(json.verificationMaterial.tlogEntries ?? []).toEqual([]);
    expect(await checkBundle(bytes, mine.publicKey, claim)).toEqual({
      valid: true,
      keyId: mine.publicKey.keyId,
    });
  });

  it('refuses a signature for another digest or another repository', async () => {
    const bytes = await signClaim(mine.key, claim);
    expect(await checkBundle(bytes, mine.publicKey, { ...claim, digest: D2 })).toMatchObject({
      valid: false,
      problem: 'other-image',
      reason: `the signature is for ${D1}, not this image's ${D2}`,
    });
    expect(await checkBundle(bytes, mine.publicKey, { ...claim, repository: 'service-web' })).toMatchObject({
      problem: 'other-image',
      reason: 'the signature is for repository service-api, not service-web',
    });
  });

  it('refuses a signature by another key, also when the key id is forged', async () => {
    const bytes = await signClaim(theirs.key, claim);
    expect(await checkBundle(bytes, mine.publicKey, claim)).toMatchObject({
      problem: 'other-key',
      reason: expect.stringMatching(/signed by another key/),
    });
    const forged = edit(bytes, (json) => {
      json.verificationMaterial.publicKey.hint = mine.publicKey.keyId;
    });
    expect(await checkBundle(forged, mine.publicKey, claim)).toMatchObject({ problem: 'bad-signature' });
  });

  it('refuses a modified payload', async () => {
    const bytes = await signClaim(mine.key, claim);
    const modified = edit(bytes, (json) => {
      json.dsseEnvelope.payload = statementFor({ ...claim, digest: D2 }).toString('base64');
    });
    expect(await checkBundle(modified, mine.publicKey, { ...claim, digest: D2 })).toMatchObject({
      valid: false,
      problem: 'bad-signature',
      reason: expect.stringMatching(/payload was modified/),
    });
  });

  it('refuses what is not a bundle', async () => {
    expect(await checkBundle(Buffer.from('{"x":1}'), mine.publicKey, claim)).toMatchObject({
      problem: 'unreadable',
    });
    expect(await checkBundle(Buffer.from('nope'), mine.publicKey, claim)).toMatchObject({
      problem: 'unreadable',
    });
  });
});
