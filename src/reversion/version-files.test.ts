import { describe, expect, it } from 'vitest';
import {
  formatByName,
  formatsLabel,
  parseFormatsLabel,
  rewriteVersionFile,
  type VersionFile,
} from './version-files.ts';

const html = (v: string) => `<html><head><meta name="app-version" content="${v}" /></head></html>\n`;

describe('version files', () => {
  it('re-writes a whole-file version, keeping a trailing newline', () => {
    expect(
      rewriteVersionFile('/VERSION', Buffer.from('v1.0.0-rc.1\n'), { format: 'text' }, 'v1.0.0').toString(),
    ).toBe('v1.0.0\n');
    expect(
      rewriteVersionFile('/VERSION', Buffer.from('1.0.0-rc.1'), { format: 'text' }, '1.0.0').toString(),
    ).toBe('1.0.0');
  });

  it('re-writes a JSON key in place and keeps the other keys', () => {
    const out = rewriteVersionFile(
      '/build.json',
      Buffer.from('{"name":"web","release":"v1.0.0-rc.1","n":1}'),
      { format: 'json', key: 'release' },
      'v1.0.0',
    );
    expect(JSON.parse(out.toString())).toEqual({ name: 'web', release: 'v1.0.0', n: 1 });
  });

  it('refuses a JSON file without its key, or not JSON', () => {
    const json = { format: 'json', key: 'version' } as const;
    expect(() => rewriteVersionFile('/v.json', Buffer.from('{"other":1}'), json, 'v1')).toThrow(
      /no "version" key/,
    );
    expect(() => rewriteVersionFile('/v.json', Buffer.from('nope'), json, 'v1')).toThrow(/not JSON/);
  });

  it('re-writes exactly one named <meta>, escaped, and refuses none or two', () => {
    const meta = { format: 'html-meta', name: 'app-version' } as const;
    expect(rewriteVersionFile('/i.html', Buffer.from(html('v1-rc.1')), meta, 'v1"<')).toEqual(
      Buffer.from(html('v1&quot;&lt;')),
    );
    expect(() => rewriteVersionFile('/i.html', Buffer.from('<html></html>'), meta, 'v1')).toThrow(
      /0 app-version/,
    );
    expect(() => rewriteVersionFile('/i.html', Buffer.from(html('a') + html('b')), meta, 'v1')).toThrow(
      /2 app-version/,
    );
  });

  it('the formats label round-trips; unreadable entries fall back to the name rule', () => {
    const files: VersionFile[] = [
      { path: '/app/web/index.html', format: 'html-meta', name: 'service-client-version' },
      { path: '/app/web/version.json', format: 'json', key: 'version' },
      { path: '/app/VERSION', format: 'text' },
    ];
    const label = formatsLabel(files);
    expect(label).toBe(
      '/app/web/index.html=html-meta:service-client-version,/app/web/version.json=json:version,/app/VERSION=text',
    );
    const parsed = parseFormatsLabel(label);
    for (const { path, ...format } of files) expect(parsed.get(path)).toEqual(format);
    expect(parseFormatsLabel('/a=html-meta:<bad>,/b=weird,junk').size).toBe(0);
    expect(formatByName('/x/version.json')).toEqual({ format: 'json', key: 'version' });
    expect(formatByName('/x/index.html')).toEqual({ format: 'html-meta', name: 'service-client-version' });
    expect(formatByName('/x/app.js')).toBeUndefined();
  });
});
