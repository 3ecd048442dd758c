import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { withoutGitEnv } from '../version-source/git-describe.ts';

/**
 * The `org.opencontainers.image.source` label: the project's `repository` in package.json, else
 * git's `origin` URL, else `unknown`. Credentials in a URL are dropped (never in a label), and
 * nothing machine-specific (like a local path) is used, so rebuilds elsewhere give the same label.
 */
export async function imageSource(cwd: string): Promise<string> {
  const fromPackage = await readFile(join(cwd, 'package.json'), 'utf8')
    .then((text) => {
      const repository = (JSON.parse(text) as { repository?: string | { url?: string } }).repository;
      return typeof repository === 'string' ? repository : repository?.url;
    })
    .catch(() => undefined);
  const url =
    fromPackage ??
    (
      await execa('git', ['remote', 'get-url', 'origin'], {
        cwd,
        reject: false,
        env: withoutGitEnv(process.env),
        extendEnv: false,
      })
    ).stdout?.trim();
  if (!url || url.startsWith('/') || url.startsWith('file:')) return 'unknown';
  return url.replace(/^git\+/, '').replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/i, '$1');
}
