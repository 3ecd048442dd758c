import { describe, expect, it } from 'vitest';
import { redact, registerSecret } from './redact.ts';

registerSecret('signing');
registerSecret('hunter2!x');
registerSecret('tok.en');

describe('redact', () => {
  it.each([
    ['wrote keys/release-signing.key', 'wrote keys/release-signing.key'],
    ['signing_key and signing-key and signing.key', 'signing_key and signing-key and signing.key'],
    ['passphrase signing', 'passphrase ***'],
    ['passphrase was signing.', 'passphrase was ***.'],
    ['RELEASE_SIGNING_PASSPHRASE=signing', 'RELEASE_SIGNING_PASSPHRASE=***'],
    ['{"passphrase":"signing"}', '{"passphrase":"***"}'],
    ['user:signing@host', 'user:***@host'],
    ['a/signing/b', 'a/***/b'],
    ['hunter2!x and hunter2!xy', '*** and hunter2!xy'],
    ['(tok.en), tok.en. tok.ens tok.en.x', '(***), ***. tok.ens tok.en.x'],
    ['https://me:pw@registry.example/v2/', 'https://***:***@registry.example/v2/'],
  ])('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });
});
