import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { type LocalRegistry, startLocalRegistry } from '../../src/registry/local-registry.ts';

export { freePort } from '../../src/processes/free-port.ts';

export interface StartRegistryOptions {
  /** Require this user (HTTP basic auth, bcrypt htpasswd file). */
  htpasswd?: { user: string; password: string };
  /** Require bearer tokens from this token service, signed by the key of `certFile` (PEM). */
  token?: { realm: string; service: string; issuer: string; certFile: string };
  /** Allow `DELETE` of manifests (storage.delete.enabled), e.g. to delete a signature. */
  deleteEnabled?: boolean;
}

export type RunningRegistry = LocalRegistry;

/**
 * A real `docker-registry serve` (distribution 2.x) on a free loopback port, with filesystem
 * storage in a temp dir and optional basic or token auth. `stop()` kills it and removes the dir.
 */
export async function startRegistry(options: StartRegistryOptions = {}): Promise<RunningRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'sr-registry-'));
  const auth: string[] = [];
  if (options.htpasswd) {
    const file = join(dir, 'htpasswd');
    writeFileSync(file, `${options.htpasswd.user}:${bcrypt.hashSync(options.htpasswd.password, 5)}\n`);
    auth.push('auth:', '  htpasswd:', '    realm: test-registry', `    path: ${file}`);
  } else if (options.token) {
    const t = options.token;
    auth.push(
      'auth:',
      '  token:',
      `    realm: ${t.realm}`,
      `    service: ${t.service}`,
      `    issuer: ${t.issuer}`,
      `    rootcertbundle: ${t.certFile}`,
    );
  }
  return startLocalRegistry({
    dir,
    extraConfig: auth,
    ...(options.deleteEnabled ? { deleteEnabled: true } : {}),
  });
}
