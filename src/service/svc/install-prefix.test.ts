import { describe, expect, it } from 'vitest';
import { installPrefixOf } from './install-prefix.ts';

describe('installPrefixOf', () => {
  it.each([
    ['/usr/local/lib/node_modules/service-cli/svc.js', '/usr/local'],
    ['/home/a/.npm-global/lib/node_modules/service-cli/svc.js', '/home/a/.npm-global'],
    ['/work/main/src/service/svc/main.ts', undefined],
    ['/usr/lib/node_modules/other/svc.js', undefined],
    [undefined, undefined],
  ])('%s -> %s', (script, prefix) => {
    expect(installPrefixOf(script)).toBe(prefix);
  });
});
