import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { ExternalError, InternalError, isReleaseError, UsageError } from '../../../errors.ts';
import { clientVersionOf } from './client-version.ts';
import { WEB_SOURCE_DIR, webViteConfig } from './web-config.ts';

export interface BuildWebOptions {
  /** The version to bake in (normally `SERVICE_CLIENT_VERSION`); blank gives `unknown`. */
  version: string;
  /** Where the built client goes; replaced as a whole. */
  outDir: string;
}

/**
 * Build the reference web client into `outDir`: index.html with
 * `<meta name="service-client-version">`, hashed assets, and `version.json`.
 *
 * The version is validated first (UsageError `WEB_VERSION_INVALID`). The build goes to a
 * temporary sibling and replaces `outDir` only when it is complete, so a failed build leaves the
 * previous one in place. An existing `outDir` is replaced only if it is empty or a previous web
 * build (it has a `version.json`), so a mistyped path cannot wipe an unrelated folder.
 */
export async function buildWeb(options: BuildWebOptions): Promise<void> {
  const version = clientVersionOf(options.version);
  const outDir = resolve(options.outDir);
  await checkOutDir(outDir);

  const staging = `${outDir}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const { build } = await loadVite();
    await build(webViteConfig(version, staging));
    await replaceDir(staging, outDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (isReleaseError(error)) throw error;
    throw new InternalError('WEB_BUILD_FAILED', `the web client build failed: ${messageOf(error)}`, {
      hint: "run npm run build:web to see Vite's full output",
      cause: error,
    });
  }
}

async function checkOutDir(outDir: string): Promise<void> {
  const fromSource = relative(outDir, WEB_SOURCE_DIR);
  if (fromSource === '' || !fromSource.startsWith('..')) {
    throw new UsageError(
      'WEB_OUT_DIR_INVALID',
      `the output folder ${outDir} contains the web client's sources`,
      {
        hint: 'build into a folder of its own, such as dist/web',
      },
    );
  }
  const entries: string[] = await readdir(outDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new UsageError(
      'WEB_OUT_DIR_INVALID',
      `cannot use ${outDir} as the output folder: ${error.message}`,
      {
        hint: 'build into a folder of its own, such as dist/web',
      },
    );
  });
  if (entries.length > 0 && !entries.includes('version.json')) {
    throw new UsageError('WEB_OUT_DIR_NOT_A_BUILD', `${outDir} is not empty and is not a web client build`, {
      hint: 'build into a new or empty folder, such as dist/web; it is replaced as a whole',
    });
  }
}

/** Put `staging` in place of `target`; the old target is moved aside first and removed last. */
async function replaceDir(staging: string, target: string): Promise<void> {
  const exists = await stat(target).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await rename(staging, target);
    return;
  }
  const old = `${target}.${randomBytes(4).toString('hex')}.old`;
  await rename(target, old);
  try {
    await rename(staging, target);
  } catch (error) {
    await rename(old, target);
    throw error;
  }
  await rm(old, { recursive: true, force: true });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Vite builds only this reference web client, so it is an optional peer dependency of the package:
 * a team releasing its own service does not install our client's bundler (about 20 MB).
 */
async function loadVite(): Promise<typeof import('vite')> {
  try {
    return await import('vite');
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new ExternalError(
      'VITE_MISSING',
      'building the reference web client needs vite, which is not installed',
      {
        hint: 'install vite to build the reference web client: npm install --save-dev vite@7',
        cause: error,
      },
    );
  }
}
