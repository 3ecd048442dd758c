import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// `release base-image`: the minimal node base made on this machine, nothing pulled.

describe('release base-image', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sr-base-image-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes node and its shared libraries as one reproducible image skopeo reads', async () => {
    const ref = `oci-layout:${dir}/node:test`;
    const run = () => runRelease(['base-image', '--ref', ref, '--json'], { cwd: dir, timeoutMs: 120_000 });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    const [image] = jsonOf<{
      images: { reference: string; digest: string; node: string; files: string[] }[];
    }>(first).images;
    expect(image?.node).toBe(process.version);
    expect(image?.files).toEqual(expect.arrayContaining(['/usr/local/bin/node', '/etc/passwd']));
    // Whatever ldd lists (the dynamic loader at least) goes in at the loader's own path.
    const ldd = execFileSync('ldd', [process.execPath], { encoding: 'utf8' });
    for (const path of ldd.match(/\/\S+(?= \(0x)/g) ?? []) expect(image?.files).toContain(path);

    const inspected = JSON.parse(
      execFileSync('skopeo', ['inspect', `oci:${dir}/node:test`], { encoding: 'utf8' }),
    );
    expect(inspected.Digest).toBe(image?.digest);
    expect(inspected.Layers).toHaveLength(1);
    expect(inspected.Env).toContain(`NODE_VERSION=${process.version.slice(1)}`);

    const again = await run();
    expect(jsonOf<{ images: { digest: string }[] }>(again).images[0]?.digest).toBe(image?.digest);
  }, 180_000);

  it('refuses a digest reference (exit 2)', async () => {
    const result = await runRelease(
      ['base-image', '--ref', `oci-layout:${dir}/node@sha256:${'0'.repeat(64)}`],
      { cwd: dir },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/names a digest; a new image needs a tag/);
  });
});
