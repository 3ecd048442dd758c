import { readFile } from 'node:fs/promises';
import type { Channel } from '../channels/channel-of.ts';
import { ConfigError, UsageError } from '../errors.ts';
import { writeFileAtomically } from '../files/atomic-write.ts';
import { insideProject } from '../files/project-path.ts';
import { printable } from '../text/printable.ts';
import type { VersionSource } from '../version-source/resolve-version.ts';

/** One image artifact in the record. Later steps add what they learn (digest after build...). */
export interface ImageRecord {
  /** api, worker, web or job; absent for an extra image. */
  role?: 'api' | 'worker' | 'web' | 'job';
  /** Repository reference: `<registry>/<image>` (`oci-layout:<dir>/<image>` for the layout store). */
  repository: string;
  /** Full references this build will get in its channel. */
  references: string[];
  /** Manifest digest, once built or pushed. */
  digest?: string;
  /** What `release build` made: where the image is, with which engine, on which base. */
  build?: ImageBuildRecord;
  /** Set instead of `build` when the project's own CI built the image (`release adopt`). */
  adopted?: AdoptedRecord;
  /**
   * When one image runs several roles: every artifact that runs it, this one (its builder)
   * first (`[{ artifact: 'api', role: 'api' }, { artifact: 'scheduler', role: 'worker' }]`).
   * The image is built, signed and promoted once, under this entry.
   */
  roles?: { artifact: string; role?: 'api' | 'worker' | 'web' | 'job' }[];
}

export interface ImageBuildRecord {
  engine: 'docker' | 'oci';
  /** Where the image is: `<registry>/<image>:<tag>`, or the engine's local name when not pushed. */
  reference: string;
  /** Whether it is in the configured registry (pushed, or written there by the oci engine). */
  pushed: boolean;
  /** Docker's image ID (docker engine). */
  imageId?: string;
  base: { reference: string; digest: string };
  /** The fixed time in the labels and layers (SOURCE_DATE_EPOCH or the commit time), RFC 3339. */
  created: string;
}

/** An image the project's own CI built and pushed, taken as the build of the version. */
export interface AdoptedRecord {
  /** Where its digest came from: a buildx or bake metadata file (by SHA-256), or a reference given. */
  from: {
    kind: 'buildx-metadata' | 'bake-metadata' | 'reference';
    /** The metadata file as given, and the SHA-256 of its bytes. */
    file?: string;
    sha256?: string;
    /** bake: the target. */
    target?: string;
    /** The names it was pushed under, as the metadata (or the reference) wrote them. */
    names: string[];
    /** `buildx.build.ref`. */
    buildRef?: string;
    /** buildx recorded a provenance of its own beside it. */
    buildxProvenance?: boolean;
  };
  /** How it was matched to the artifact: `api=` given, its image name, or its bake target. */
  matchedBy: 'artifact' | 'image name' | 'bake target';
  mediaType: string;
  /** An index: its platform images. */
  platforms?: string[];
  /** Where it is now: `<registry>/<image>:build-<12 hex>`. */
  reference: string;
}

export interface CliRecord {
  package: string;
  /** The CLI's version: the service's tag, or on its own line what its package declares. */
  version: string;
  /** `own`: the CLI keeps its own version line (`artifacts.cli.version`); its version is read at build. */
  line?: 'own';
  /** Path of the built archive and its SHA-256, once built. */
  archive?: string;
  sha256?: string;
  /** The archive's size in bytes. */
  size?: number;
}

/** One `release promote` run, as the record keeps it. */
export interface PromotionEntry {
  channel: Channel;
  tag: string;
  /** ISO 8601 time of the promotion. */
  at: string;
  /** `--from`, when the images came from a tag or digest rather than this record's build. */
  from: string | null;
  store: string;
  artifacts: Record<string, { digest: string; written: string[]; kept: string[] }>;
  /** What the promotion did about signatures (docs/guides/signing.md). */
  signing?: PromotionSigning;
  /** A release re-stamped from an rc: per artifact, the rc digest it was made from. */
  madeFrom?: Record<string, string>;
  /** ... and the release digests signed, bound to those rc digests. */
  releaseSigning?: PromotionSigning;
}

/**
 * rc: `signed` (each digest signed, or already signed, by `keyId`) or `unsigned` (`--no-sign`);
 * release `--from`: `verified` (every source digest carried a valid signature before any tag).
 */
export interface PromotionSigning {
  status: 'signed' | 'unsigned' | 'verified';
  keyId?: string;
  reason?: string;
  /** Per artifact: the digest and the signature referrer that vouches for it. */
  artifacts?: Record<
    string,
    {
      digest: string;
      signature?: string;
      madeFrom?: string;
      /** A multi-platform index: each platform child's digest and signature (and its rc child). */
      platforms?: { platform: string; digest: string; signature?: string; madeFrom?: string }[];
    }
  >;
}

/**
 * The release record (`dist/release.json` by default): what `release stamp` decided, carried to
 * build, promote and verify so that every step works from the same facts.
 */
export interface ReleaseRecord {
  schemaVersion: 1;
  /** The resolved value, exactly as resolved. */
  version: string;
  /** The image tag: `v`-prefixed for release and rc, the version itself otherwise. */
  tag: string;
  channel: Channel;
  source: VersionSource;
  commit: string | null;
  dirty: boolean;
  /** Committer time of HEAD in seconds (SOURCE_DATE_EPOCH for reproducible builds), when known. */
  commitTime: number | null;
  /** By artifact name: every image artifact (api, worker, web and extra ones) and the CLI. */
  artifacts: Record<string, ImageRecord | CliRecord>;
  /** Appended by `release promote`, one entry per promotion that wrote or confirmed tags. */
  promotions?: PromotionEntry[];
  /** Anything later steps append (promotions, signatures). */
  [extension: string]: unknown;
}

/** The image artifact `name` in the record (undefined for the CLI or a name not stamped). */
export function imageRecord(record: ReleaseRecord, name: string): ImageRecord | undefined {
  const entry = record.artifacts[name];
  return entry && 'references' in entry ? entry : undefined;
}

/** The CLI in the record, whatever its artifact is called. */
export function cliRecord(record: ReleaseRecord): CliRecord | undefined {
  return Object.values(record.artifacts).find((entry): entry is CliRecord => 'package' in entry);
}

/**
 * The record's path: the config's `record` against the config's folder (the project). Stamp
 * writes it and three files beside it, so a setting that leaves the project (`../../x.json`,
 * `/etc/x.json`) is refused, as `files.from`, `context` and the CLI archive are: a config is read
 * from a repository, and must not make a CI job write outside its checkout.
 */
export function recordPath(projectDir: string, recordSetting: string): string {
  const path = insideProject(projectDir, recordSetting);
  if (path) return path;
  throw new UsageError(
    'RECORD_OUTSIDE_PROJECT',
    `record: "${printable(recordSetting)}" is outside the project (${projectDir})`,
    { hint: 'set record to a path inside the project, such as dist/release.json' },
  );
}

/** Read the record written by `release stamp`; a clear error when it is missing or unreadable. */
export async function readReleaseRecord(path: string): Promise<ReleaseRecord> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError('RECORD_MISSING', `no release record at ${path}`, {
      hint: 'run `release stamp` first (it writes the record), or set `record` in the config',
    });
  }
  try {
    const record = JSON.parse(text) as ReleaseRecord;
    if (record.schemaVersion !== 1 || typeof record.tag !== 'string' || !record.artifacts)
      throw new Error('shape');
    return record;
  } catch {
    throw new ConfigError(`the release record at ${path} is not one this version of release can read`, [], {
      hint: 'run `release stamp` again to rewrite it',
    });
  }
}

export function writeReleaseRecord(path: string, record: ReleaseRecord): Promise<void> {
  return writeFileAtomically(path, `${JSON.stringify(record, null, 2)}\n`);
}
