import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readPublicKey } from '../../src/signing/key-files.ts';
import { parsePrivateKey, parsePublicKey } from '../../src/signing/keys.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

const PASS = 'keygen-test-passphrase-6f1e';
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sr-keygen-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('release keygen', () => {
  it('writes an encrypted 0600 private key and a public key, and never prints either secret', async () => {
    const dir = tempDir();
    const result = await runRelease(['keygen', '--out', 'keys', '--json'], {
      cwd: dir,
      env: { RELEASE_SIGNING_PASSPHRASE: PASS },
    });
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<{ privateKey: string; publicKey: string; keyId: string }>(result);
    expect(out.privateKey).toBe(join(dir, 'keys', 'release-signing.key'));
    expect(statSync(out.privateKey).mode & 0o777).toBe(0o600);
    const privatePem = readFileSync(out.privateKey, 'utf8');
    expect(privatePem).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    const key = parsePrivateKey(privatePem, PASS, 'k');
    expect(parsePublicKey(readFileSync(out.publicKey, 'utf8'), 'p').keyId).toBe(key.publicKey.keyId);
    expect(out.keyId).toBe(key.publicKey.keyId);
    const printed = result.stdout + result.stderr;
    expect(printed).not.toContain(PASS);
    for (const line of privatePem.split('\n').filter((l) => l.length > 20))
      expect(printed).not.toContain(line);
  });

  it('refuses an --out that leads out of the project, through a link or `..` (exit 2), and writes no key', async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(dir, 'keys'));
    for (const out of ['keys', join('..', basename(elsewhere))]) {
      const result = await runRelease(['keygen', '--out', out, '--json'], {
        cwd: dir,
        env: { RELEASE_SIGNING_PASSPHRASE: PASS },
      });
      expect(result.code, out).toBe(2);
      expect(jsonOf<{ error: { code: string } }>(result).error.code).toBe('KEYGEN_OUT_OUTSIDE_PROJECT');
    }
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('a key the config names outside the project (through a link, or `..`) is not read (exit 2)', async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const made = await runRelease(['keygen', '--out', 'keys', '--json'], {
      cwd: dir,
      env: { RELEASE_SIGNING_PASSPHRASE: PASS },
    });
    expect(made.code).toBe(0);
    symlinkSync(join(dir, 'keys'), join(elsewhere, 'keys'));
    const project = tempDir();
    symlinkSync(elsewhere, join(project, 'link'));
    const config = (publicKey: string) => ({
      configDir: project,
      config: { signing: { publicKey } } as never,
    });
    await expect(readPublicKey(config('link/keys/release-signing.pub'))).rejects.toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining(
          'signing.publicKey: "link/keys/release-signing.pub" is outside the project',
        ),
      }),
    );
    await expect(readPublicKey(config(join(dir, 'keys/release-signing.pub')))).rejects.toThrow(
      /is outside the project/,
    );
    cpSync(join(dir, 'keys'), join(project, 'keys'), { recursive: true });
    expect((await readPublicKey(config('keys/release-signing.pub')))?.keyId).toBe(
      jsonOf<{ keyId: string }>(made).keyId,
    );
  });

  it('prints the next step for a human', async () => {
    const dir = tempDir();
    const result = await runRelease(['keygen'], { cwd: dir, env: { RELEASE_SIGNING_PASSPHRASE: PASS } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'wrote release-signing.key (mode 0600, encrypted with $RELEASE_SIGNING_PASSPHRASE)',
    );
    expect(result.stdout).toContain("set signing.publicKey to 'release-signing.pub'");
  });

  it('refuses to overwrite existing keys and leaves them untouched', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'release-signing.pub'), 'old public key\n');
    const result = await runRelease(['keygen'], { cwd: dir, env: { RELEASE_SIGNING_PASSPHRASE: PASS } });
    // The code `release init` refuses an existing file with (docs/reference/exit-codes.md).
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to overwrite');
    expect(result.stderr).toContain('release-signing.pub');
    expect(readFileSync(join(dir, 'release-signing.pub'), 'utf8')).toBe('old public key\n');
    expect(() => statSync(join(dir, 'release-signing.key'))).toThrow();
  });

  it('refuses to write an unencrypted key when the passphrase is not set', async () => {
    const dir = tempDir();
    const result = await runRelease(['keygen', '--json'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(jsonOf<{ error: { code: string } }>(result).error.code).toBe('SIGNING_PASSPHRASE_MISSING');
    expect(() => statSync(join(dir, 'release-signing.key'))).toThrow();
  });

  it('--verifier: its own files and passphrase variable, beside a release key it never replaces', async () => {
    const dir = tempDir();
    const env = { RELEASE_SIGNING_PASSPHRASE: PASS };
    expect((await runRelease(['keygen'], { cwd: dir, env })).code).toBe(0);
    const missing = await runRelease(['keygen', '--verifier'], { cwd: dir, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('RELEASE_VERIFIER_PASSPHRASE is not set');
    const result = await runRelease(['keygen', '--verifier'], {
      cwd: dir,
      env: { RELEASE_VERIFIER_PASSPHRASE: `${PASS}-v` },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('encrypted with $RELEASE_VERIFIER_PASSPHRASE');
    expect(result.stdout).toContain("set verifier.publicKey to 'release-verifier.pub'");
    const verifier = parsePrivateKey(
      readFileSync(join(dir, 'release-verifier.key'), 'utf8'),
      `${PASS}-v`,
      'v',
    );
    const release = parsePublicKey(readFileSync(join(dir, 'release-signing.pub'), 'utf8'), 'r');
    expect(verifier.publicKey.keyId).not.toBe(release.keyId);
    expect(statSync(join(dir, 'release-verifier.key')).mode & 0o777).toBe(0o600);
  });
});
