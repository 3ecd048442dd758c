import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalNpmRegistry, startLocalNpmRegistry } from '../../src/cli-package/local-npm-registry.ts';

export type RunningNpmRegistry = LocalNpmRegistry & {
  user: { name: string; password: string };
  /** `registry=` and `//host/:_authToken=` lines for an `.npmrc` (token as given, default the user's). */
  npmrc(token?: string): string;
};

/**
 * A real Verdaccio 5 on a free loopback port (storage in a temp dir, htpasswd auth, no uplinks).
 * Fails fast with Verdaccio's own output when it cannot start. `stop()` kills it and removes the dir.
 */
export async function startNpmRegistry(): Promise<RunningNpmRegistry> {
  const user = { name: 'publisher', password: `pw-${Math.random().toString(36).slice(2)}` };
  const registry = await startLocalNpmRegistry({ dir: mkdtempSync(join(tmpdir(), 'sr-npm-')), user });
  const authority = registry.url.replace(/^https?:/, '');
  return {
    ...registry,
    user,
    npmrc: (token = registry.token) => `registry=${registry.url}\n${authority}:_authToken=${token}\n`,
  };
}
