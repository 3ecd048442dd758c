import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { RuleError, UsageError } from '../errors.ts';
import type { ImageStore } from '../registry/store.ts';
import { openBundle } from '../signing/bundle.ts';
import type { PublicSigningKey } from '../signing/keys.ts';
import { printable } from '../text/printable.ts';
import { readStatements } from './attach-evidence.ts';
import { parseStatement } from './statements.ts';
import { VSA_ARTIFACT_TYPE, VSA_PREDICATE, type VsaReading, vsaClaim } from './vsa.ts';

/** A summaries file is a few bundles: anything past this is not one `--attest` wrote. */
export const MAX_VSA_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The summaries in a file `release verify --attest --out` wrote: JSON Lines, one Sigstore bundle
 * per line (the layout of SLSA's attestation bundles). Each is opened under the verifier's key.
 */
export async function vsasFromFile(path: string, verifier: PublicSigningKey): Promise<VsaReading[]> {
  const text = await readBounded(path);
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0)
    throw new RuleError('VSA_FILE_EMPTY', `${path} holds no verification summary`, {
      hint: 'give the file release verify --attest --out wrote',
    });
  const readings: VsaReading[] = [];
  for (const [i, line] of lines.entries())
    readings.push(await readingOf(`${path} line ${i + 1}`, Buffer.from(line), verifier));
  return readings;
}

/**
 * The summaries attached to the images' digests in a store, each checked as evidence is (the
 * referrer names the digest, the bundle is the blob it lists); the same summary attached to
 * several digests is read once.
 */
export async function vsasFromStore(
  store: ImageStore,
  verifier: PublicSigningKey,
  images: { repository: string; digests: string[] }[],
): Promise<VsaReading[]> {
  const seen = new Set<string>();
  const readings: VsaReading[] = [];
  for (const image of images) {
    for (const digest of image.digests) {
      const entries = await readStatements(
        store,
        verifier,
        { repository: image.repository, digest },
        {
          label: 'verification summary',
          formerArtifactType: VSA_ARTIFACT_TYPE,
          predicateType: VSA_PREDICATE,
        },
      );
      for (const entry of entries) {
        // Listed in a stale fallback index but gone from the store: nothing is offered.
        if (entry.status === 'deleted') continue;
        const key = entry.payload ? createHash('sha256').update(entry.payload).digest('hex') : entry.referrer;
        if (seen.has(key)) continue;
        seen.add(key);
        const source = `${image.repository}@${digest.slice(0, 19)} referrer ${entry.referrer.slice(0, 19)}`;
        if (entry.status !== 'valid') readings.push({ source, reason: entry.reason ?? entry.status });
        else {
          const claim = vsaClaim(entry.statement!);
          readings.push(typeof claim === 'string' ? { source, reason: claim } : { source, claim });
        }
      }
    }
  }
  return readings;
}

async function readingOf(source: string, bundle: Buffer, verifier: PublicSigningKey): Promise<VsaReading> {
  const opened = await openBundle(bundle, verifier);
  if (!opened.valid) return { source, reason: opened.reason };
  const statement = parseStatement(opened.payload);
  if (typeof statement === 'string') return { source, reason: statement };
  const claim = vsaClaim(statement);
  return typeof claim === 'string' ? { source, reason: claim } : { source, claim };
}

/** The file's text, refused past `MAX_VSA_FILE_BYTES` before it is read into memory. */
async function readBounded(path: string): Promise<string> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      'VSA_FILE_UNREADABLE',
      `cannot read ${path}: ${printable(error.code ?? error.message)}`,
      {
        hint: '--vsa takes the file release verify --attest --out wrote, or a store (host/ns, oci-layout:, oci-archive:)',
      },
    );
  });
  try {
    const { size } = await handle.stat();
    if (size > MAX_VSA_FILE_BYTES)
      throw new RuleError('VSA_FILE_TOO_LARGE', `${path} is ${size} bytes, more than summaries take`, {
        hint: `a summaries file is at most ${MAX_VSA_FILE_BYTES} bytes`,
      });
    const buffer = Buffer.alloc(size);
    await handle.read(buffer, 0, size, 0);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
