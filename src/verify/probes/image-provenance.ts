import { archiveSignatureValid } from '../../archives/archive-signature.ts';
import type { OciImageConfig } from '../../oci-image/image-config.ts';
import { hasVersionLayer, RESTAMPED_FROM } from '../../oci-image/version-layer.ts';
import { platformChildren } from '../../registry/platform-children.ts';
import type { ImageStore, Manifest } from '../../registry/store.ts';
import type { LayerScanCache } from '../../restamp/layer-scan-cache.ts';
import { sha256Hex } from '../../restamp/release-archive-signatures.ts';
import { versionOfConfig } from '../../restamp/restamp-config.ts';
import { restampImage } from '../../restamp/restamp-image.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { ImageProvenance } from '../types.ts';
import { rebuiltFileProof, releaseVersionFiles } from './rebuilt-files.ts';

/** What provenance is read with: the store, the trusted key, and the release archive signatures. */
export interface ProvenanceSource {
  store: ImageStore;
  trusted: PublicSigningKey | undefined;
  repository: string;
  /** The release tag the image must be its rc re-stamped for. */
  tag: string;
  /** By SHA-256 of a CLI archive: the signature the release carries for it (read once, when needed). */
  carried: () => Promise<Map<string, string>>;
  /** Version scans of the rc's layers from earlier runs (the promotion's), by layer digest. */
  layerScans?: LayerScanCache | undefined;
}

/**
 * The provenance of one release manifest: an image, or an index taken as a whole (its rc named
 * by its annotation; re-stamping the rc index must give it byte for byte). `view` is the image
 * config and layers, absent for an index.
 */
export async function manifestProvenance(
  source: ProvenanceSource,
  release: Manifest,
  madeFrom: string | undefined,
  view?: ImageView,
): Promise<ImageProvenance> {
  const { store, trusted, repository, tag } = source;
  const reading: ImageProvenance = { digest: release.descriptor.digest };
  if (view) reading.imageVersion = versionOfConfig(view.config);
  if (!madeFrom) return reading;
  reading.madeFrom = madeFrom;
  const rcManifest = await store.getManifest(repository, madeFrom);
  if (!rcManifest) return { ...reading, rcMissing: true };
  const rc = await readImage(store, repository, rcManifest);
  if (rc) reading.rcVersion = versionOfConfig(rc.config);
  const carried = await source.carried();
  const rebuilt = rebuiltFileProof(
    await releaseVersionFiles(store, repository, view, view ? undefined : release),
    reading.rcVersion ?? (await firstChildVersion(store, repository, rcManifest)),
    tag,
  );
  const restamp = (topLayer: boolean | 'files-only') =>
    restampImage(store, repository, rcManifest, tag, {
      ...rebuilt,
      topLayer,
      layerScans: source.layerScans,
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
  // A release of an image without our version layer has the top-layer rewrite of its baked files
  // (restamp-top-layer.ts); one made before that existed, or refused by it (a glued version
  // form), changed its config only; one made before the top layer carried the rc's folders and
  // owners holds the files alone: each is the rc re-stamped.
  let again = (await restamp(true).catch(() => undefined)) ?? (await restamp(false));
  for (const older of [false, 'files-only'] as const) {
    if (!again.topLayer || again.manifest.descriptor.digest === release.descriptor.digest) break;
    const made = await restamp(older);
    if (made.manifest.descriptor.digest === release.descriptor.digest) again = made;
  }
  reading.restampMatches = again.manifest.descriptor.digest === release.descriptor.digest;
  if (rc && view) {
    // A release of an image without our version layer may add one top layer (restamp-top-layer.ts):
    // the rc's layers are then the release's below it.
    const mine = again.topLayer ? codeLayersOf(view).slice(0, -1) : codeLayersOf(view);
    const theirs = codeLayersOf(rc);
    reading.codeLayers = {
      count: mine.length,
      equal: mine.length === theirs.length && mine.every((d, i) => d === theirs[i]),
    };
  }
  if (trusted) {
    const { checkImageSignature } = await import('../../signing/image-signature.ts');
    reading.rcSignature = (
      await checkImageSignature(store, trusted, { repository, digest: madeFrom })
    ).status;
    const check = await checkImageSignature(store, trusted, {
      repository,
      digest: release.descriptor.digest,
    });
    const bound = check.signatures.some((s) => s.valid && s.madeFrom === madeFrom);
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
}

/** An index's version, as its first platform image reports it (an index has no config). */
async function firstChildVersion(
  store: ImageStore,
  repository: string,
  index: Manifest,
): Promise<string | undefined> {
  const child = platformChildren(index.bytes)?.[0];
  const manifest = child && (await store.getManifest(repository, child.digest));
  const image = manifest && (await readImage(store, repository, manifest));
  return image ? versionOfConfig(image.config) : undefined;
}

/** The rc an image names: its manifest annotation, else its config label (Docker schema 2). */
export function madeFromOf(view: ImageView): string | undefined {
  return view.annotations?.[RESTAMPED_FROM] ?? view.config.config?.Labels?.[RESTAMPED_FROM];
}

export interface ImageView {
  config: OciImageConfig;
  layers: string[];
  annotations?: Record<string, string>;
}

/** An image manifest's config and layers; undefined for an index. */
export async function readImage(
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
