import { open } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { schemeOf } from '../cli-version/read-own-version.ts';
import { artifactWithRole, declaredCliArtifact, servesCli, webClients } from '../config/artifacts.ts';
import type { ReleaseConfig } from '../config/schema.ts';
import { archiveFiles } from '../reversion/archive-files.ts';
import type { Naming } from './fixes.ts';

/** An npm package archive larger than this is not read for its bin (the name falls back). */
const MAX_ARCHIVE = 64 * 1024 * 1024;

/**
 * The service's own names for verify and watch, from its config: the variable its server and web
 * client read (the first of `versionVariables`, else the standard one), the images of several web
 * clients by artifact name, and its CLI, only when the
 * config declares one: its program is `artifacts.cli.bin`, else the bin of the package in its
 * built archive, else the package's unscoped name (npm's own default for a single bin).
 */
export async function serviceNaming(
  config: Pick<ReleaseConfig, 'artifacts' | 'versionVariables'>,
  configDir: string,
): Promise<Naming> {
  const server = config.versionVariables?.server?.[0];
  const client = config.versionVariables?.client?.[0];
  const cli = declaredCliArtifact(config);
  const archive = cli?.build ? resolve(configDir, cli.build.archive) : undefined;
  const webs = webClients(config);
  return {
    ...(server ? { serverVariable: server } : {}),
    ...(client ? { clientVariable: client } : {}),
    ...(webs.length > 1 ? { webImages: Object.fromEntries(webs.map((w) => [w.name, w.image])) } : {}),
    ...(cli
      ? {
          cli: {
            program: cli.bin ?? (archive && (await binInArchive(archive))) ?? unscoped(cli.package),
            installCommand: cli.installCommand,
            archiveName: archive ? basename(archive) : 'service-cli.tar.gz',
            package: cli.package,
            ...(servedByApi(config) ? { served: true } : {}),
            ...(cli.publish ? { published: true } : {}),
            ...(cli.version === 'own' ? { ownLine: true, scheme: schemeOf(cli.own) } : {}),
          },
        }
      : {}),
  };
}

/** Whether the API serves the CLI archive (`/api/cli/download/…`): only when its artifact says so. */
function servedByApi(config: Pick<ReleaseConfig, 'artifacts'>): boolean {
  const api = artifactWithRole(config, 'api');
  return api !== undefined && servesCli(api);
}

/** The bin an npm package archive installs: its only one, or the one named for the package. */
export async function binInArchive(path: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    const file = await open(path, 'r');
    try {
      if ((await file.stat()).size > MAX_ARCHIVE) return undefined;
      bytes = await file.readFile();
    } finally {
      await file.close();
    }
    const manifest = (await archiveFiles(bytes, path)).get('package/package.json');
    if (!manifest) return undefined;
    return binOf(JSON.parse(manifest.toString('utf8')) as unknown);
  } catch {
    return undefined; // not built yet, not an npm package, unreadable: the name falls back
  }
}

/** npm's rule: a string `bin` installs the package's unscoped name; an object, its keys. */
export function binOf(manifest: unknown): string | undefined {
  if (typeof manifest !== 'object' || manifest === null) return undefined;
  const { name, bin } = manifest as { name?: unknown; bin?: unknown };
  const own = typeof name === 'string' ? unscoped(name) : undefined;
  if (typeof bin === 'string') return own;
  if (typeof bin !== 'object' || bin === null) return undefined;
  const names = Object.keys(bin).filter((n) => /^[A-Za-z0-9_@][A-Za-z0-9._@+-]{0,63}$/.test(n));
  return names.length === 1 ? names[0] : names.find((n) => n === own);
}

function unscoped(name: string): string {
  return name.replace(/^@[^/]+\//, '');
}
