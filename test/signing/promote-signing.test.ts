import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkImageSignature } from '../../src/signing/image-signature.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { startProxy } from '../registry/proxy.ts';
import { IMAGES, type SigningProject, signingProject, writeRecord } from './fixture.ts';

// `release promote --channel rc` signs what it promotes (by digest, last), refuses to start without
// a key unless --no-sign, and records what it did; then a release from it checks those signatures.

const RC = 'v2.0.0-rc.1';
type Artifact = keyof typeof IMAGES;

let p: SigningProject;
let built: Record<Artifact, string>;
beforeEach(async () => {
  p = await signingProject();
  // What `release build` leaves: images pushed by digest, their digests in the record.
  built = {
    api: await p.push(IMAGES.api),
    worker: await p.push(IMAGES.worker),
    web: await p.push(IMAGES.web),
  };
  writeRecord(p, RC, 'rc', built);
});
afterEach(async () => {
  await p.cleanup();
});

const record = () => JSON.parse(readFileSync(join(p.dir, 'dist', 'release.json'), 'utf8'));
const tagged = async (tag: string) =>
  Promise.all(Object.values(IMAGES).map(async (repo) => (await p.store.resolve(repo, tag))?.digest ?? null));

describe('release promote --channel rc signs', () => {
  it('tags the rc, signs each promoted digest, records it, and a release from it is verified', async () => {
    const result = await runRelease(['promote', '--channel', 'rc', '--json'], { cwd: p.dir, env: p.env });
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<{
      signing: {
        status: string;
        keyId: string;
        artifacts: Record<string, { digest: string; signature: string }>;
      };
    }>(result);
    expect(out.signing).toMatchObject({ status: 'signed', keyId: p.key.publicKey.keyId });
    expect(await tagged(RC)).toEqual([built.api, built.worker, built.web]);
    for (const artifact of Object.keys(IMAGES) as Artifact[]) {
      expect(out.signing.artifacts[artifact]!.digest).toBe(built[artifact]);
      const check = await checkImageSignature(p.store, p.key.publicKey, {
        repository: IMAGES[artifact],
        digest: built[artifact],
      });
      expect(check.status).toBe('valid');
      expect(check.signatures.map((s) => s.digest)).toEqual([out.signing.artifacts[artifact]!.signature]);
    }
    expect(record().promotions[0]).toMatchObject({
      channel: 'rc',
      tag: RC,
      signing: { status: 'signed', keyId: p.key.publicKey.keyId },
    });
    expect(result.stdout + result.stderr).not.toContain(p.env['RELEASE_SIGNING_PASSPHRASE']);

    // A re-run writes no tag and adds no second signature.
    const again = await runRelease(['promote', '--channel', 'rc'], { cwd: p.dir, env: p.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/signatures: api, web, worker signed by key [0-9a-f]{16}/);
    const check = await checkImageSignature(p.store, p.key.publicKey, {
      repository: IMAGES.api,
      digest: built.api,
    });
    expect(check.signatures).toHaveLength(1);

    const release = await runRelease(
      ['promote', '--channel', 'release', '--from', RC, '--version', 'v2.0.0'],
      { cwd: p.dir, env: p.env },
    );
    expect(release.code, release.stderr).toBe(0);
    expect(release.stdout).toMatch(/signatures: api, web, worker verified by key [0-9a-f]{16}/);
    expect(await tagged('v2.0.0')).toEqual([built.api, built.worker, built.web]);
    expect(record().promotions[2]).toMatchObject({
      channel: 'release',
      from: RC,
      signing: { status: 'verified' },
    });
  });

  it('refuses to start without a key, before any tag is written', async () => {
    const configPath = join(p.dir, 'release.config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    delete config.signing.privateKey;
    writeFileSync(configPath, JSON.stringify(config));
    const result = await runRelease(['promote', '--channel', 'rc', '--json'], { cwd: p.dir, env: p.env });
    expect(result.code).toBe(1);
    const error = jsonOf<{ error: { code: string; message: string; hint: string } }>(result).error;
    expect(error.code).toBe('RC_SIGNING_KEY_MISSING');
    expect(error.hint).toContain('--no-sign');
    expect(await tagged(RC)).toEqual([null, null, null]);
    expect(record().promotions).toBeUndefined();
  });

  it('refuses a wrong passphrase before any tag is written, without echoing it', async () => {
    const wrong = 'wrong-passphrase-5b1f0';
    const result = await runRelease(['promote', '--channel', 'rc'], {
      cwd: p.dir,
      env: { RELEASE_SIGNING_PASSPHRASE: wrong },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('wrong passphrase in RELEASE_SIGNING_PASSPHRASE');
    expect(result.stdout + result.stderr).not.toContain(wrong);
    expect(await tagged(RC)).toEqual([null, null, null]);
  });

  it('--no-sign promotes unsigned, says so, records it, and the release from it is refused', async () => {
    const result = await runRelease(['promote', '--channel', 'rc', '--no-sign', '--json'], {
      cwd: p.dir,
      env: {},
    });
    expect(result.code, result.stderr).toBe(0);
    expect(jsonOf<{ signing: unknown }>(result).signing).toEqual({ status: 'unsigned', reason: '--no-sign' });
    expect(result.stderr).toContain(`${RC} was promoted unsigned (--no-sign)`);
    expect(await tagged(RC)).toEqual([built.api, built.worker, built.web]);
    expect(record().promotions[0].signing).toEqual({ status: 'unsigned', reason: '--no-sign' });

    const release = await runRelease(
      ['promote', '--channel', 'release', '--from', RC, '--version', 'v2.0.0'],
      { cwd: p.dir, env: {} },
    );
    expect(release.code).toBe(1);
    for (const artifact of ['api', 'worker', 'web'] as const)
      expect(release.stderr).toContain(
        `${artifact} (${IMAGES[artifact]}@${built[artifact]}): unsigned, no signature is attached`,
      );
    expect(await tagged('v2.0.0')).toEqual([null, null, null]);

    // `release sign` repairs it; then the release goes through.
    const signed = await runRelease(['sign', RC], { cwd: p.dir, env: p.env });
    expect(signed.code, signed.stderr).toBe(0);
    const retry = await runRelease(['promote', '--channel', 'release', '--from', RC, '--version', 'v2.0.0'], {
      cwd: p.dir,
      env: {},
    });
    expect(retry.code, retry.stderr).toBe(0);
  });

  it('a store failing during signing leaves the rc tagged but unsigned, says so, and release sign completes it', async () => {
    const proxy = await startProxy(p.registry.host);
    try {
      const configPath = join(p.dir, 'release.config.json');
      writeFileSync(
        configPath,
        JSON.stringify({ ...JSON.parse(readFileSync(configPath, 'utf8')), registry: proxy.host }),
      );
      // Fail the first write of a referrers index: the signature of the first image is half made.
      proxy.failFirst((method, url) => method === 'PUT' && /\/manifests\/sha256-[0-9a-f]{64}$/.test(url));
      const failed = await runRelease(['promote', '--channel', 'rc', '--json'], { cwd: p.dir, env: p.env });
      expect(failed.code).toBe(3);
      const error = jsonOf<{ error: { code: string; message: string; hint: string } }>(failed).error;
      expect(error.code).toBe('RC_SIGNING_FAILED');
      expect(error.message).toContain(`${RC} is tagged but not signed`);
      expect(error.hint).toContain(`release sign ${RC}`);
      expect(await tagged(RC)).toEqual([built.api, built.worker, built.web]);

      const release = await runRelease(
        ['promote', '--channel', 'release', '--from', RC, '--version', 'v2.0.0'],
        { cwd: p.dir, env: {} },
      );
      expect(release.code).toBe(1);
      const signed = await runRelease(['sign', RC], { cwd: p.dir, env: p.env });
      expect(signed.code, signed.stderr).toBe(0);
      const retry = await runRelease(
        ['promote', '--channel', 'release', '--from', RC, '--version', 'v2.0.0'],
        { cwd: p.dir, env: {} },
      );
      expect(retry.code, retry.stderr).toBe(0);
    } finally {
      await proxy.stop();
    }
  });

  it('a release from an rc needs signing.publicKey in the config', async () => {
    await runRelease(['promote', '--channel', 'rc'], { cwd: p.dir, env: p.env });
    writeFileSync(join(p.dir, 'release.config.json'), JSON.stringify({ registry: p.registry.host }));
    const result = await runRelease(
      ['promote', '--channel', 'release', '--from', RC, '--version', 'v2.0.0'],
      { cwd: p.dir, env: {} },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('signing.publicKey is not configured');
    expect(await tagged('v2.0.0')).toEqual([null, null, null]);
  });
});
