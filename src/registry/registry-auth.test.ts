import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { realmRefusal } from './registry-auth.ts';
import { registryBaseUrl } from './registry-base-url.ts';

describe('realmRefusal: a token realm over plain http', () => {
  it.each([
    // [registry, realm, insecure, allowed]
    ['registry.example.com', 'https://auth.example.com/token', [], true],
    ['registry.example.com', 'http://registry.example.com:8080/token', [], false],
    ['registry.example.com', 'http://registry.example.com/token', [], false],
    ['registry.example.com', 'http://auth.example.com/token', [], false],
    ['registry.example.com', 'http://127.0.0.1:5001/token', [], false],
    ['registry.example.com', 'http://auth.internal:5001/token', ['auth.internal:5001'], true],
    ['127.0.0.1:5000', 'http://127.0.0.1:5001/token', [], true],
    ['127.0.0.1:5000', 'http://localhost:5001/token', [], false],
    ['localhost:5000', 'http://localhost:5001/token', [], true],
    ['10.0.0.5:5000', 'http://10.0.0.5:5001/token', ['10.0.0.5:5000'], true],
    ['10.0.0.5:5000', 'http://10.0.0.5:5001/token', [], false],
    ['10.0.0.5:5000', 'ftp://10.0.0.5/token', ['10.0.0.5:5000'], false],
  ] as const)('registry %s, realm %s, insecure %j: allowed %s', (registry, realm, insecure, allowed) => {
    expect(realmRefusal(new URL(realm), registry, [...insecure]) === undefined).toBe(allowed);
  });

  it('never lets credentials leave an https registry over http unless the realm host is listed (fast-check)', () => {
    const host = fc.constantFrom(
      'registry.example.com',
      'auth.example.com',
      '127.0.0.1',
      'localhost',
      '10.0.0.5',
      '[::1]',
    );
    const port = fc.option(fc.constantFrom(5000, 5001, 8080), { nil: undefined });
    const at = (h: string, p: number | undefined) => (p === undefined ? h : `${h}:${p}`);
    fc.assert(
      fc.property(
        host,
        port,
        host,
        port,
        fc.subarray(['registry.example.com', '10.0.0.5:5000', 'auth.example.com:8080']),
        (rh, rp, ah, ap, insecure) => {
          const registry = at(rh, rp);
          const realm = new URL(`http://${at(ah, ap)}/token`);
          const refused = realmRefusal(realm, registry, insecure) !== undefined;
          const registryPlain = registryBaseUrl(registry, insecure).startsWith('http:');
          const realmListed = insecure.includes(realm.host) || insecure.includes(realm.hostname);
          if (!registryPlain && !realmListed) expect(refused).toBe(true);
          if (!refused && !realmListed) expect(realm.hostname).toBe(rh);
        },
      ),
      { numRuns: 500, seed: 53 },
    );
  });
});
