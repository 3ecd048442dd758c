import { createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliArchive } from '../../src/service/svc/build/build-cli-archive.ts';
import { generateSigningKeys } from '../../src/signing/keys.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { runRelease } from '../helpers/run-release.ts';
import type { StartedProcess } from '../helpers/start-process.ts';
import { baseEnv, npmInstall, packageFileIn, run, Scratch, sha256Of, startApi, svcIn } from './support.ts';

// Authenticity of `svc update`: an svc built with the release key baked in installs
// only archives signed by that key, served by the real service-api (signature from
// `<archive>.sig`, sent in X-Signature-ECDSA-SHA256). Wrongly signed and unsigned archives are
// refused before any byte runs; --insecure-skip-signature says what it skips. And `release build`
// with signing.publicKey bakes the key and signs the archive.
const scratch = new Scratch();
const prefix = scratch.path('prefix');
const apis: Record<string, StartedProcess> = {};
let installedHash: string;
let keyId: string;

function keys(passphrase: string): { pem: string; privateKey: KeyObject; keyId: string; privatePem: string } {
  const { privatePem, publicKey } = generateSigningKeys(passphrase);
  return {
    pem: publicKey.pem,
    privateKey: createPrivateKey({ key: privatePem, passphrase }),
    keyId: publicKey.keyId,
    privatePem,
  };
}

async function archive(version: string, dir: string, signing?: { pem: string; privateKey: KeyObject }) {
  mkdirSync(scratch.path(dir), { recursive: true });
  const out = scratch.path(dir, 'service-cli.tar.gz');
  await buildCliArchive({
    version,
    outFile: out,
    signing: signing && { publicKeyPem: signing.pem, privateKey: signing.privateKey },
  });
  return out;
}

beforeAll(async () => {
  const release = keys('release-passphrase');
  const other = keys('other-passphrase');
  keyId = release.keyId.slice(0, 16);
  const [installed, signed, wrong, unsigned] = await Promise.all([
    archive('v0.1.0', 'installed', release),
    archive('v1.0.0', 'signed', release),
    archive('v1.0.0', 'wrong', other),
    archive('v1.0.0', 'unsigned'),
  ]);
  expect((await npmInstall(prefix, installed)).code).toBe(0);
  installedHash = sha256Of(packageFileIn(prefix));
  for (const [name, file] of Object.entries({ signed, wrong, unsigned }))
    apis[name] = await startApi({ SERVICE_CLI_ARCHIVE: file, SERVICE_VERSION: 'v1.0.0' });
}, 240_000);
afterAll(async () => {
  for (const api of Object.values(apis)) await api.stop();
  scratch.cleanup();
});

const env = () => baseEnv({ home: scratch.path('home'), binDirs: [join(prefix, 'bin')] });
const update = (api: string, ...flags: string[]) =>
  run(svcIn(prefix), ['update', '--url', apis[api]!.url, ...flags], { env: env(), timeoutMs: 120_000 });

function head(url: string): Promise<Record<string, string | string[] | undefined>> {
  return new Promise((resolve, reject) => {
    request(`${url}/api/cli/download/service-cli.tar.gz`, { method: 'HEAD' }, (res) => {
      res.resume();
      resolve(res.headers);
    })
      .on('error', reject)
      .end();
  });
}

describe('svc update checks the archive’s signature with the key baked into it', () => {
  it('the API serves the signature beside the archive, and none for an unsigned one', async () => {
    const sig = readFileSync(scratch.path('signed', 'service-cli.tar.gz.sig'), 'utf8').trim();
    expect((await head(apis['signed']!.url))['x-signature-ecdsa-sha256']).toBe(sig);
    expect((await head(apis['unsigned']!.url))['x-signature-ecdsa-sha256']).toBeUndefined();
    expect(existsSync(scratch.path('unsigned', 'service-cli.tar.gz.sig'))).toBe(false);
  });

  it('refuses an archive signed by another key, before it runs anything', async () => {
    const result = await update('wrong');
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`does not verify with key ${keyId} baked into this svc`);
    expect(result.stderr).toMatch(/nothing was installed/);
    expect(sha256Of(packageFileIn(prefix))).toBe(installedHash);
  });

  it('refuses an unsigned archive and names the opt-out', async () => {
    const result = await update('unsigned');
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`only installs archives signed by key ${keyId}`);
    expect(result.stderr).toContain('svc update --insecure-skip-signature');
    expect(sha256Of(packageFileIn(prefix))).toBe(installedHash);
  });

  it('the opt-out is only for update', async () => {
    const result = await run(svcIn(prefix), ['status', '--insecure-skip-signature'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('svc status does not take --insecure-skip-signature');
  });

  it('installs the archive signed by the baked key, and says it verified it', async () => {
    const result = await update('signed');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`signature verified with key ${keyId} (baked into this svc)`);
    expect(result.stdout).toContain('svc updated: v0.1.0 -> v1.0.0');
  });

  it('--insecure-skip-signature installs an unsigned archive and says what it skipped', async () => {
    // The svc installed now (v1.0.0, signed build) carries the key too; the unsigned one is v1.0.0,
    // so serve it as a different version to see it install.
    const other = await archive('v1.0.1', 'unsigned-2');
    await apis['unsigned']!.stop();
    apis['unsigned'] = await startApi({ SERVICE_CLI_ARCHIVE: other, SERVICE_VERSION: 'v1.0.1' });
    const result = await update('unsigned', '--insecure-skip-signature');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `warning: --insecure-skip-signature: NOT checking that the archive is signed by key ${keyId}`,
    );
    expect(result.stdout).toContain('svc updated: v1.0.0 -> v1.0.1');
  }, 120_000);
});

describe('release build with signing.publicKey', () => {
  it('bakes the key into svc and signs the archive; without a private key it builds unsigned and says so', async () => {
    const repo = GitRepo.create('build-signed-cli-');
    try {
      const release = keys('build-passphrase');
      mkdirSync(join(repo.dir, 'keys'));
      repo.write('keys/release.pub', release.pem);
      writeReferenceConfig(repo.dir, { signing: { publicKey: 'keys/release.pub' } });
      repo.write('.gitignore', 'dist/\n');
      repo.commit('one');
      repo.tag('v3.1.0');
      expect((await runRelease(['stamp'], { cwd: repo.dir })).code).toBe(0);

      const unsigned = await runRelease(['build', '--only', 'cli'], { cwd: repo.dir });
      expect(unsigned.code, unsigned.stderr).toBe(0);
      expect(unsigned.stderr).toMatch(/the CLI archive is not signed \(no private key/);
      expect(existsSync(join(repo.dir, 'dist', 'service-cli.tar.gz.sig'))).toBe(false);

      const keyFile = join(repo.dir, 'release.key');
      writeFileSync(keyFile, release.privatePem, { mode: 0o600 });
      const signedBuild = () =>
        runRelease(['build', '--only', 'cli', '--json'], {
          cwd: repo.dir,
          env: { RELEASE_SIGNING_KEY: keyFile, RELEASE_SIGNING_PASSPHRASE: 'build-passphrase' },
          timeoutMs: 120_000,
        });
      const built = await signedBuild();
      expect(built.code, built.stderr).toBe(0);
      expect(built.stdout + built.stderr).not.toContain('build-passphrase');
      expect(JSON.parse(built.stdout).cli).toMatchObject({ signature: 'dist/service-cli.tar.gz.sig' });
      const file = join(repo.dir, 'dist', 'service-cli.tar.gz');
      const signature = readFileSync(`${file}.sig`, 'utf8');
      // Signing is deterministic: the same build signs to the same bytes (the API image stays reproducible).
      expect((await signedBuild()).code).toBe(0);
      expect(readFileSync(`${file}.sig`, 'utf8')).toBe(signature);
      // The API serves what the build signed, and an svc with the same key verifies it.
      const api = await startApi({ SERVICE_CLI_ARCHIVE: file, SERVICE_VERSION: 'v3.1.0' });
      try {
        const headers = await head(api.url);
        expect(headers['x-signature-ecdsa-sha256']).toBe(readFileSync(`${file}.sig`, 'utf8').trim());
        const svcPrefix = scratch.path('prefix-build');
        const installed = await archive('v3.0.0', 'installed-build', release);
        expect((await npmInstall(svcPrefix, installed)).code).toBe(0);
        const result = await run(svcIn(svcPrefix), ['update', '--url', api.url], {
          env: baseEnv({ home: scratch.path('home'), binDirs: [join(svcPrefix, 'bin')] }),
          timeoutMs: 120_000,
        });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toContain(`signature verified with key ${release.keyId.slice(0, 16)}`);
        expect(result.stdout).toContain('svc updated: v3.0.0 -> v3.1.0');
      } finally {
        await api.stop();
      }
    } finally {
      repo.remove();
    }
  }, 240_000);
});
