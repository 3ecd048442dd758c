import type { OciImageConfig } from '../../engine/oci/image-config.ts';
import { hasVersionLayer, RESTAMPED_FROM } from '../../engine/oci/version-layer.ts';
import type { ImageStore, Manifest } from '../../registry/store.ts';
import { releaseArchiveSignatures, sha256Hex } from '../../restamp/release-archive-signatures.ts';
import { versionOfConfig } from '../../restamp/restamp-config.ts';
import { restampImage } from '../../restamp/restamp-image.ts';
import { readVersionLayerFiles } from '../../restamp/restamp-version-layer.ts';
import { archiveFiles } from '../../reversion/archive-files.ts';
import { compareRebuild } from '../../reversion/compare-rebuild.ts';
import { archiveSignatureValid } from '../../shared/archive-signature.ts';
import { printable } from '../../shared/printable.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { ArtifactName, ProvenanceReading } from '../types.ts';

/** The files of the release's version layer, by path ('/srv/x.tar.gz'); empty without one. */
async function releaseVersionFiles(
  store: ImageStore,
  repository: string,
  release: Manifest,
): Promise<Map<string, Buffer>> {
  const image = await readImage(store, repository, release);
  const layers = image?.layers ?? [];
  if (!image || !hasVersionLayer(image.config.config?.Labels, layers)) return new Map();
  return readVersionLayerFiles(await store.getBlob(repository, layers.at(-1)!));
}

function provenOrDefault(
  releaseFiles: Map<string, Buffer>,
  rcVersion: string | undefined,
  tag: string,
): (path: string, rcArchive: Buffer) => Promise<Buffer | undefined> {
  return async (path, rcArchive) => {
    const mine = releaseFiles.get(path);
    if (!mine || !rcVersion) return undefined;
    try {
      const rcFiles = await archiveFiles(rcArchive, 'the rc archive');
      return compareRebuild(rcFiles, await archiveFiles(mine, 'the release archive'), rcVersion, tag).equal
        ? mine
        : undefined;
    } catch {
      return undefined;
    }
  };
}

/** Read one image's provenance from the store. Never throws: an unreadable store gives `error`. */
export async function probeProvenance(
  store: ImageStore,
  trusted: PublicSigningKey | undefined,
  subject: { artifact: ArtifactName; repository: string; tag: string },
): Promise<ProvenanceReading> {
  const { repository, tag } = subject;
  const reading: ProvenanceReading = { ...subject, digest: undefined };
  try {
    const release = await store.getManifest(repository, tag);
    // Not in the store: nothing to trace (the registry step says when a running image's tag is missing).
    if (!release) return { ...reading, missing: true };
    reading.digest = release.descriptor.digest;
    const image = await readImage(store, repository, release);
    if (!image) return reading; // an index: its children carry the details
    reading.imageVersion = versionOfConfig(image.config);
    const from = image.annotations?.[RESTAMPED_FROM] ?? image.config.config?.Labels?.[RESTAMPED_FROM];
    if (!from) return reading;
    reading.madeFrom = from;
    const rcManifest = await store.getManifest(repository, from);
    if (!rcManifest) return { ...reading, rcMissing: true };
    const rc = await readImage(store, repository, rcManifest);
    if (rc) {
      reading.rcVersion = versionOfConfig(rc.config);
      const mine = codeLayersOf(image);
      const theirs = codeLayersOf(rc);
      reading.codeLayers = {
        count: mine.length,
        equal: mine.length === theirs.length && mine.every((d, i) => d === theirs[i]),
      };
    }
    const carried = await releaseArchiveSignatures(store, repository, release);
    const releaseFiles = await releaseVersionFiles(store, repository, release);
    const again = await restampImage(store, repository, rcManifest, tag, {
      // A CLI archive rebuilt from the rc's commit cannot be re-made here (no build, no checkout):
      // the release's own archive stands when it is the rc's modulo version strings (the proof
      // the release made before writing it); anything else re-stamps by default and then differs.
      reversionArchive: provenOrDefault(releaseFiles, reading.rcVersion, tag),
      // A file rebuilt from the rc's commit: the release's copy, when the rc's modulo version strings.
      rebuiltFile: async (path, rcFile) => {
        const mine = releaseFiles.get(path);
        const proven =
          mine &&
          reading.rcVersion &&
          compareRebuild(new Map([[path, rcFile]]), new Map([[path, mine]]), reading.rcVersion, tag).equal;
        return proven ? mine : rcFile; // the rc's copy then makes the layers differ: not re-stamped
      },
      // Asked only when the rc's archive was signed and the re-stamp changed it.
      sign: (archive) => {
        const signature = carried.get(sha256Hex(archive));
        if (signature === undefined) {
          reading.cliArchiveSignature = 'missing';
          return ''; // the layers then differ: the release is not the rc re-stamped
        }
        reading.cliArchiveSignature = !trusted
          ? 'unchecked'
          : archiveSignatureValid(archive, signature, trusted.key)
            ? 'valid'
            : 'invalid';
        return signature;
      },
    });
    reading.restampMatches = again.manifest.descriptor.digest === release.descriptor.digest;
    if (trusted) {
      const { checkImageSignature } = await import('../../signing/image-signature.ts');
      reading.rcSignature = (await checkImageSignature(store, trusted, { repository, digest: from })).status;
      const check = await checkImageSignature(store, trusted, {
        repository,
        digest: release.descriptor.digest,
      });
      const bound = check.signatures.some((s) => s.valid && s.madeFrom === from);
      reading.releaseSignature =
        check.status === 'valid'
          ? bound
            ? 'bound'
            : 'unbound'
          : check.status === 'missing'
            ? 'missing'
            : 'invalid';
    }
    return reading;
  } catch (error) {
    return { ...reading, error: printable((error as Error).message, { max: 300 }) };
  }
}

interface ImageView {
  config: OciImageConfig;
  layers: string[];
  annotations?: Record<string, string>;
}

async function readImage(
  store: ImageStore,
  repository: string,
  manifest: Manifest,
): Promise<ImageView | undefined> {
  const json = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as {
    config?: { digest: string };
    layers?: { digest: string }[];
    annotations?: Record<string, string>;
  };
  if (!json.config || !json.layers) return undefined;
  const config = JSON.parse(
    Buffer.from(await store.getBlob(repository, json.config.digest)).toString('utf8'),
  ) as OciImageConfig;
  return {
    config,
    layers: json.layers.map((l) => l.digest),
    ...(json.annotations ? { annotations: json.annotations } : {}),
  };
}

/** Every layer but the version layer (the last, when the labels name it). */
function codeLayersOf(image: ImageView): string[] {
  return hasVersionLayer(image.config.config?.Labels, image.layers)
    ? image.layers.slice(0, -1)
    : image.layers;
}
