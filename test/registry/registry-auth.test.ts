import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { startTokenServer, type TokenServer } from './token-server.ts';

const user = 'ci-bot';
const password = `pw-${randomBytes(12).toString('hex')}`;
const identityToken = `idt-${randomBytes(16).toString('hex')}`;
let work: string;

/** A DOCKER_CONFIG directory holding `config`, and a PATH with our credential helper on it. */
function dockerConfig(config: unknown): Record<string, string> {
  const dir = mkdtempSync(join(work, 'cfg-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return { DOCKER_CONFIG: dir, PATH: `${join(work, 'bin')}:${process.env['PATH']}` };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sr-auth-'));
  mkdirSync(join(work, 'bin'));
  // A real credential helper program speaking the docker protocol: host on stdin, JSON out.
  const helper = join(work, 'bin', 'docker-credential-srtest');
  writeFileSync(
    helper,
    `#!/bin/sh\nread host\n[ "$1" = get ] || exit 2\ncase "$host" in\n  *unknown*) echo "credentials not found in native keychain"; exit 1;;\nesac\nprintf '{"ServerURL":"%s","Username":"${user}","Secret":"${password}"}' "$host"\n`,
  );
  chmodSync(helper, 0o755);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('basic auth (htpasswd)', () => {
  let registry: RunningRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ htpasswd: { user, password } });
  });
  afterAll(async () => registry?.stop());

  const roundTrip = async (env: Record<string, string>) => {
    const store = new RegistryStore({ registry: registry.host, env });
    const digest = await pushImage(store, 'svc-api', makeImage(), 'v1');
    expect((await store.resolve('svc-api', 'v1'))?.digest).toBe(digest);
    expect(await store.listTags('svc-api')).toContain('v1');
  };

  it('refuses anonymous access with a hint and no secret', async () => {
    const store = new RegistryStore({ registry: registry.host, env: { HOME: work } });
    const error = (await store.listTags('svc-api').catch((e: unknown) => e)) as Error & { hint: string };
    expect(error).toMatchObject({ code: 'REGISTRY_UNAUTHORIZED', exitCode: 3 });
    expect(error.hint).toContain(`docker login ${registry.host}`);
  });

  it('reads auths.auth (base64 user:password)', async () => {
    const auth = Buffer.from(`${user}:${password}`).toString('base64');
    await roundTrip(dockerConfig({ auths: { [registry.host]: { auth } } }));
  });

  it('reads auths username/password under an https:// key', async () => {
    await roundTrip(
      dockerConfig({ auths: { [`https://${registry.host}/v1/`]: { username: user, password } } }),
    );
  });

  it('runs docker-credential-<name> for credHelpers and credsStore', async () => {
    await roundTrip(dockerConfig({ credHelpers: { [registry.host]: 'srtest' } }));
    await roundTrip(dockerConfig({ credsStore: 'srtest' }));
  });

  it('reports a missing credential helper as an outside failure', async () => {
    const env = dockerConfig({ credsStore: 'does-not-exist' });
    const store = new RegistryStore({ registry: registry.host, env });
    await expect(store.listTags('svc-api')).rejects.toMatchObject({
      code: 'CREDENTIAL_HELPER_FAILED',
      exitCode: 3,
    });
  });

  it('refuses a wrong password without printing it', async () => {
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    const store = new RegistryStore({
      registry: registry.host,
      env: dockerConfig({ auths: { [registry.host]: { username: user, password: wrong } } }),
    });
    const error = (await store.listTags('svc-api').catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'REGISTRY_UNAUTHORIZED' });
    expect(JSON.stringify({ m: error.message, e: error })).not.toContain(wrong);
  });
});

describe('bearer token flow', () => {
  let tokens: TokenServer;
  let registry: RunningRegistry;
  beforeAll(async () => {
    tokens = await startTokenServer({ user, password, identityToken });
    registry = await startRegistry({ token: tokens });
  });
  afterAll(async () => {
    await registry?.stop();
    await tokens?.stop();
  });

  it('gets a token from the realm the registry names, with the scopes it needs, and caches it', async () => {
    const env = dockerConfig({ auths: { [registry.host]: { username: user, password } } });
    const store = new RegistryStore({ registry: `${registry.host}/acme`, env });
    const image = makeImage();
    await pushImage(store, 'svc-api', image, 'v1');
    await pushImage(store, 'svc-api', image, 'v2');
    expect((await store.resolve('svc-api', 'v1'))?.digest).toBe(image.descriptor.digest);
    expect((await store.listTags('svc-api')).sort()).toEqual(['v1', 'v2']);
    const asked = tokens.requests.map((r) => r.scopes.join(' '));
    expect(asked.some((s) => s.includes('repository:acme/svc-api:pull,push'))).toBe(true);
    expect(tokens.requests.every((r) => r.user === user)).toBe(true);
    // Two pushes, a resolve and a list: the pull,push token serves them all after the first.
    expect(store.auth.tokenRequests).toBeLessThanOrEqual(2);
  });

  it('trades an identity token for an access token (OAuth2 refresh grant)', async () => {
    const env = dockerConfig({ auths: { [registry.host]: { identitytoken: identityToken } } });
    const store = new RegistryStore({ registry: `${registry.host}/acme`, env });
    const digest = await pushImage(store, 'svc-web', makeImage(), 'v1');
    expect((await store.resolve('svc-web', 'v1'))?.digest).toBe(digest);
  });

  it('fails with REGISTRY_AUTH_FAILED when the token service refuses', async () => {
    const env = dockerConfig({ auths: { [registry.host]: { username: user, password: 'nope-nope' } } });
    const store = new RegistryStore({ registry: `${registry.host}/acme`, env });
    const error = (await store.listTags('svc-api').catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'REGISTRY_AUTH_FAILED', exitCode: 3 });
    expect(error.message).not.toContain('nope-nope');
  });
});
