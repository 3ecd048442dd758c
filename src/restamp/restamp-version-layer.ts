import { posix } from 'node:path';
import { SIGNATURE_SUFFIX, signatureFileText } from '../archives/archive-signature.ts';
import { readTar } from '../archives/tar-reader.ts';
import { restampCliArchive } from '../cli-package/restamp-archive.ts';
import { CLI_ARCHIVE_INVALID, isReleaseError, RuleError } from '../errors.ts';
import { createLayerFromTar, type Layer, type LayerEntry, packTar } from '../oci-image/layer.ts';
import { companionSignatures, isArchivePath } from '../oci-image/version-layer.ts';
import { formatByName, rewriteVersionFile, type VersionFileFormat } from '../reversion/version-files.ts';

/** A version layer holds a few small files; anything bigger is not one we made. */
export const MAX_VERSION_LAYER_BYTES = 32 * 1024 * 1024;

/**
 * Signs a re-stamped CLI archive (base64 signature of `archive`, the file at `path` in the layer).
 * A release signs with the release key; verify, which has no private key, answers with the
 * signature the release it checks carries, so re-stamping still reproduces the release's digest.
 */
export type ArchiveSigner = (archive: Buffer, path: string) => string | Promise<string>;

export interface VersionLayerOptions {
  /** Each file's format, from the image's formats label (reversion/version-files.ts). */
  formats?: ReadonlyMap<string, VersionFileFormat>;
  /**
   * The release's copy of a CLI archive, when the release makes it other than by re-writing its
   * package.json (rebuilt from the rc's commit and proven, or kept): undefined for the default.
   */
  reversionArchive?: (path: string, rcArchive: Buffer) => Promise<Buffer | undefined>;
  /** The release's copy of a file whose format is `rebuild` (rebuilt from the rc's commit, proven). */
  rebuiltFile?: (path: string, rcFile: Buffer) => Promise<Buffer>;
}

/** The refusal when a signed archive is re-stamped and no key can sign the new bytes. */
export function archiveSigningKeyMissing(archivePath: string): RuleError {
  return new RuleError(
    'ARCHIVE_SIGNING_KEY_MISSING',
    `${archivePath} is signed, and the release re-packs it with its own version: its new signature needs the signing key`,
    {
      hint: 'pass --key <file>, or set RELEASE_SIGNING_KEY and RELEASE_SIGNING_PASSPHRASE (or signing.privateKey); nothing was written. Every svc built with the public key refuses an archive whose signature does not verify',
    },
  );
}

/**
 * The version layer of a release from the rc's: every file `files` names is re-written for
 * `version` by its kind, everything else (the parent directories) is kept, and the layer is packed
 * with the same deterministic rules and entry time as the build, so re-stamping is reproducible:
 * the same rc and version always give the same digest (verify relies on that).
 *
 * Each file is re-written by the format `formats` gives it (the image's formats label, from the
 * artifact's declared `versionFiles`, see reversion/version-files.ts), else by its name:
 * `version.json` -> its `version` key; `*.html` -> `<meta name="service-client-version">`;
 * `*.tar.gz`/`*.tgz` -> an npm CLI archive re-packed with the version in its package.json
 * (restampCliArchive, code byte-identical), or what `reversionArchive` makes of it (rebuilt from
 * the rc's commit and proven equal modulo version strings, reversion/), or kept.
 *
 * A listed archive's signature (`<archive>.sig`, written by a signed build) travels with it
 * without being listed: a Dockerfile copies it with a wildcard only when the build signed, so no
 * fixed label could name it. When the re-stamp changes the archive, `sign` signs the new bytes
 * (the svc in users' hands refuses an archive whose signature does not verify with its baked
 * key, so the rc's signature must never be left beside a re-packed archive); without `sign` the
 * re-stamp is refused. An archive kept byte-identical keeps its signature as it is.
 */
export async function restampVersionLayer(
  blob: Uint8Array,
  files: readonly string[],
  version: string,
  sign?: ArchiveSigner,
  options: VersionLayerOptions = {},
): Promise<Layer> {
  if (blob.length > MAX_VERSION_LAYER_BYTES) {
    throw new RuleError(
      'VERSION_LAYER_INVALID',
      `the version layer is ${blob.length} bytes, too big to be one`,
    );
  }
  const { entries, mtime } = await readLayer(blob);
  const wanted = new Set(files);
  const signatures = new Set(companionSignatures(files));
  const restamped = new Map<string, { before: Buffer; after: Buffer }>();
  const out: LayerEntry[] = [];
  for (const entry of entries) {
    if (entry.type === 'file' && wanted.has(entry.path)) {
      wanted.delete(entry.path);
      const before = Buffer.from(entry.content);
      const after = await restampFile(entry.path, before, version, options);
      restamped.set(entry.path, { before, after });
      out.push({ ...entry, content: after });
    } else if (entry.type === 'file' && signatures.has(entry.path)) {
      out.push(entry); // re-signed below, once its archive is re-stamped
    } else if (entry.type === 'dir') {
      out.push(entry);
    } else {
      throw new RuleError(
        'VERSION_LAYER_INVALID',
        `the version layer holds ${entry.path}, which its label does not list`,
        { hint: 'the version layer must hold only the files its label names' },
      );
    }
  }
  if (wanted.size > 0)
    throw new RuleError('VERSION_LAYER_INVALID', `the version layer has no ${[...wanted].join(', ')}`);
  for (const [index, entry] of out.entries()) {
    if (entry.type !== 'file' || !signatures.has(entry.path)) continue;
    const archivePath = entry.path.slice(0, -SIGNATURE_SUFFIX.length);
    const archive = restamped.get(archivePath)!;
    if (archive.before.equals(archive.after)) continue;
    if (!sign) throw archiveSigningKeyMissing(archivePath);
    out[index] = {
      ...entry,
      content: Buffer.from(signatureFileText(await sign(archive.after, archivePath))),
    };
  }
  // The rc's own entries only: a parent folder its layer left out is made up by no one here (an
  // overlay runtime would make it root's, hiding the folder below).
  return createLayerFromTar(await packTar(out, mtime, { parents: false }));
}

/** The files of a version layer by path (a release's own archive and `.sig`, for verify). */
export async function readVersionLayerFiles(blob: Uint8Array): Promise<Map<string, Buffer>> {
  if (blob.length > MAX_VERSION_LAYER_BYTES) return new Map();
  const { entries } = await readLayer(blob);
  return new Map(
    entries.flatMap((e) => (e.type === 'file' ? [[e.path, Buffer.from(e.content)] as const] : [])),
  );
}

async function restampFile(
  path: string,
  content: Buffer,
  version: string,
  options: VersionLayerOptions,
): Promise<Buffer> {
  if (isArchivePath(path) && options.reversionArchive) {
    const made = await options.reversionArchive(path, content);
    if (made) return made;
  }
  const format = options.formats?.get(path) ?? (isArchivePath(path) ? undefined : formatByName(path));
  if (format?.format === 'rebuild' && options.rebuiltFile) return options.rebuiltFile(path, content);
  if (format) return rewriteVersionFile(path, content, format, version);
  if (isArchivePath(posix.basename(path))) return restampArchive(content, version);
  throw new RuleError(
    'VERSION_LAYER_INVALID',
    `no rule re-stamps ${path}: declare its format in versionFiles (text, json, html-meta)`,
  );
}

/**
 * An npm CLI archive gets the release version in its package.json; any other archive (a Python
 * sdist) stays byte-identical here: what bakes its version into its code is rebuilt from the rc's
 * commit instead (reversion/), and handed in by `reversionArchive`.
 */
async function restampArchive(content: Buffer, version: string): Promise<Buffer> {
  try {
    return await restampCliArchive(content, version);
  } catch (error) {
    if (isReleaseError(error) && error.code === CLI_ARCHIVE_INVALID) return content;
    throw error;
  }
}

// The owner is kept: an engine's COPY --chown (or a folder made by the service's user) must
// stay as the rc had it once re-packed.
type ReadEntry =
  | { type: 'dir'; path: string; mode: number; uid: number; gid: number }
  | { type: 'file'; path: string; mode: number; uid: number; gid: number; content: Uint8Array }
  | { type: 'symlink'; path: string; target: string };

/** The entries of a gzipped layer, and the time of its first entry (the build's time). */
async function readLayer(blob: Uint8Array): Promise<{ entries: ReadEntry[]; mtime: number }> {
  const entries: ReadEntry[] = [];
  let mtime: number | undefined;
  try {
    for await (const entry of readTar(blob, { gzip: true })) {
      const { header } = entry;
      mtime ??= Math.floor((header.mtime?.getTime() ?? 0) / 1000);
      const path = `/${header.name.replace(/^\.?\/+/, '').replace(/\/+$/, '')}`;
      const mode = (header.mode ?? 0o644) & 0o7777;
      const owner = { uid: header.uid ?? 0, gid: header.gid ?? 0 };
      if (header.type === 'directory') entries.push({ type: 'dir', path, mode, ...owner });
      else if (header.type === 'file')
        entries.push({ type: 'file', path, mode, ...owner, content: await entry.bytes() });
      else if (header.type === 'symlink')
        entries.push({ type: 'symlink', path, target: header.linkname ?? '' });
      else throw new Error(`unexpected ${header.type} entry ${path}`);
    }
  } catch (error) {
    throw new RuleError(
      'VERSION_LAYER_INVALID',
      `the version layer is not a readable tar: ${(error as Error).message}`,
    );
  }
  return { entries, mtime: mtime ?? 0 };
}
