import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createLayer } from '../engine/oci/layer.ts';
import { restampVersionLayer } from './restamp-version-layer.ts';

const html = (v: string) =>
  `<!doctype html><head><meta charset="utf-8" />\n<meta name="service-client-version" content="${v}" /></head>`;

async function webLayer(version: string, extra: { path: string; content: string }[] = []) {
  return createLayer(
    [
      { type: 'file', path: '/app/web/index.html', content: html(version) },
      { type: 'file', path: '/app/web/version.json', content: `${JSON.stringify({ version })}\n` },
      ...extra.map((e) => ({ type: 'file' as const, ...e })),
    ],
    1_700_000_000,
  );
}
const FILES = ['/app/web/index.html', '/app/web/version.json'];

describe('restampVersionLayer', () => {
  it('re-writes version.json and the meta tag, and equals the layer a build of that version makes', async () => {
    const rc = await webLayer('v1.0.0-rc.1');
    const out = await restampVersionLayer(rc.bytes, FILES, 'v1.0.0');
    const built = await webLayer('v1.0.0');
    expect(out.digest).toBe(built.digest);
    expect(gunzipSync(out.bytes).toString('latin1')).toContain('content="v1.0.0"');
    // Deterministic: the same input always gives the same bytes.
    expect((await restampVersionLayer(rc.bytes, FILES, 'v1.0.0')).digest).toBe(out.digest);
  });

  it('refuses a layer holding a file its label does not list, or missing one it lists', async () => {
    const smuggled = await webLayer('v1.0.0-rc.1', [{ path: '/app/web/evil.js', content: 'x' }]);
    await expect(restampVersionLayer(smuggled.bytes, FILES, 'v1.0.0')).rejects.toThrow(
      /holds \/app\/web\/evil\.js, which its label does not list/,
    );
    const rc = await webLayer('v1.0.0-rc.1');
    await expect(restampVersionLayer(rc.bytes, [...FILES, '/app/web/other.json'], 'v1.0.0')).rejects.toThrow(
      /has no \/app\/web\/other\.json/,
    );
  });

  it('refuses a page without exactly one service-client-version meta tag', async () => {
    const twoMetas = await createLayer(
      [{ type: 'file', path: '/app/index.html', content: html('a') + html('b') }],
      0,
    );
    await expect(restampVersionLayer(twoMetas.bytes, ['/app/index.html'], 'v1.0.0')).rejects.toThrow(
      /2 service-client-version <meta> tags/,
    );
  });
});
