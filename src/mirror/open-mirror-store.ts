import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ReleaseError, RuleError, UsageError } from '../errors.ts';
import { FlatLayoutStore } from '../registry/flat-layout-store.ts';
import { type PackedArchive, packArchive, unpackArchive } from '../registry/oci-archive.ts';
import { openStore } from '../registry/open-store.ts';
import type { ImageStore } from '../registry/store.ts';
import { mirrorTempDir } from './temp-dir.ts';

export const OCI_ARCHIVE_PREFIX = 'oci-archive:';

export interface MirrorStore {
  store: ImageStore;
  /** A target archive: pack it (after the tags). */
  finish?: () => Promise<PackedArchive | undefined>;
  /** Remove the temporary layout an archive was unpacked into or staged in. */
  close: () => Promise<void>;
}

export interface MirrorStoreOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  insecure: string[];
}

/**
 * A store for `release mirror`: the config's forms, plus `oci-archive:<file.tar>`. An archive
 * read is unpacked (streamed) into a temporary flat layout; an archive written is staged in one
 * and packed when the run has written everything, then renamed into place: never half an archive.
 */
export async function openMirrorStore(
  text: string,
  role: 'source' | 'target',
  options: MirrorStoreOptions,
): Promise<MirrorStore> {
  if (!text.startsWith(OCI_ARCHIVE_PREFIX))
    return {
      store: openStore(text, { cwd: options.cwd, env: options.env, insecure: options.insecure }),
      close: async () => {},
    };
  const file = resolve(options.cwd, text.slice(OCI_ARCHIVE_PREFIX.length));
  if (!file.endsWith('.tar'))
    throw new UsageError('ARCHIVE_NAME', `${text}: an archive is a .tar file`, {
      hint: 'oci-archive:release-v1.2.0.tar',
    });
  const dir = await mirrorTempDir();
  const close = () => rm(dir, { recursive: true, force: true });
  const name = `${OCI_ARCHIVE_PREFIX}${file}`;
  if (role === 'source') {
    await unpackArchive(file, dir).catch(async (error: NodeJS.ErrnoException) => {
      await close();
      if (error.code === 'ENOENT') throw new UsageError('ARCHIVE_MISSING', `${file} does not exist`);
      if (error instanceof ReleaseError) throw error;
      // Truncated or not a tar at all: what was carried is not what was made.
      throw new RuleError('ARCHIVE_UNREADABLE', `${file} is not a readable tar: ${error.message}`, {
        hint: 'compare its SHA-256 with the one release mirror printed when it made the archive',
      });
    });
    return {
      store: await FlatLayoutStore.open(dir, name).catch(async (error) => {
        await close();
        throw error;
      }),
      close,
    };
  }
  const store = await FlatLayoutStore.open(dir, name);
  return {
    store,
    close,
    finish: async () => {
      await store.flush();
      return packArchive(dir, file);
    },
  };
}
