import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../errors.ts';
import { clientVersionOf, escapeHtml } from './client-version.ts';

describe('clientVersionOf', () => {
  it.each([
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['  \n', 'unknown'],
    [' v1.2.3\n', 'v1.2.3'],
    ['1.2.3', '1.2.3'],
    ['v1.2.3-rc.1', 'v1.2.3-rc.1'],
    ['v1.2.3-4-gabcdef0-dirty', 'v1.2.3-4-gabcdef0-dirty'],
    ['abcdef0', 'abcdef0'],
    ['1.2.3+build.5', '1.2.3+build.5'],
    ['main', 'main'],
    ['unknown', 'unknown'],
  ])('accepts %j as %j', (raw, shown) => {
    expect(clientVersionOf(raw)).toBe(shown);
  });

  it.each(['<b>1</b>', 'v1.2.3"', "v1.2.3'", 'v1 2 3', 'v1.2.3\u0000', '-v1.2.3', `v${'1'.repeat(130)}`])(
    'refuses %j with WEB_VERSION_INVALID',
    (raw) => {
      const error = (() => {
        try {
          clientVersionOf(raw);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(UsageError);
      expect(error).toMatchObject({ code: 'WEB_VERSION_INVALID', exitCode: 2 });
      expect((error as UsageError).hint).toContain('SERVICE_CLIENT_VERSION');
    },
  );
});

describe('escapeHtml', () => {
  it('escapes every character that could end a text node or a quoted attribute', () => {
    expect(escapeHtml(`"><script>alert('x')</script>&`)).toBe(
      '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;',
    );
    expect(escapeHtml('v1.2.3-rc.1+build.5')).toBe('v1.2.3-rc.1+build.5');
  });
});
