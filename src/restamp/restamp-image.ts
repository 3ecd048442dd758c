import { RuleError } from '../errors.ts';
import type { OciImageConfig } from '../oci-image/image-config.ts';
import type { Layer } from '../oci-image/layer.ts';
import { hasVersionLayer, RESTAMPED_FROM, versionLayerFiles } from '../oci-image/version-layer.ts';
import { sha256Digest } from '../registry/digest.ts';
import { type Descriptor, type ImageStore, type Manifest, MEDIA_TYPES } from '../registry/store.ts';
import type { RebuildComparison } from '../reversion/compare-rebuild.ts';
import { parseFormatsLabel, VERSION_FILES_FORMAT_LABEL } from '../reversion/version-files.ts';
import { sameTag } from '../version/compare.ts';
import type { LayerScanCache } from './layer-scan-cache.ts';
import { restampConfig, versionOfConfig } from './restamp-config.ts';
import { rewrittenTopLayer, topLayerTime } from './restamp-top-layer.ts';
import {
  type ArchiveSigner,
  restampVersionLayer,
  type VersionLayerOptions,
} from './restamp-version-layer.ts';

/** The release image made from an rc image: what was written (or, in a dry run, would be). */
export interface RestampedImage {
  /** The rc manifest's digest. */
  from: string;
  manifest: Manifest;
  /** Blobs the release adds (config, version layer; children of an index): all small. */
  blobs: { digest: string; bytes: Uint8Array }[];
  /** Manifests pushed by digest before the tags (the children of an index). */
  children: Manifest[];
  /** Whether a version layer was re-stamped (else only the config changed). */
  versionLayer: boolean;
  /**
   * An image without our version layer whose files carry the rc's version: those rewritten in a
   * new top layer (per platform child of an index), and the proof (equal modulo version strings).
   */
  topLayer?: { files: string[]; comparison: RebuildComparison };
  /** The version the rc image reports (its version label or env); undefined when none. */
  sourceVersion: string | undefined;
  warnings: string[];
}

interface ImageManifestJson {
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

interface IndexJson {
  mediaType?: string;
  manifests: Descriptor[];
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/**
 * Compute the release image of `rc` for `version`: every code layer byte-identical to
 * the rc's, a new config (version env, version label, the rc digest), and a new version layer where
 * the image has one. Reads the rc's config and version layer only (never a code layer), so the cost
 * does not grow with the image. Pure with respect to the store: nothing is written (see
 * pushRestamped). Deterministic: the same rc and version always give the same digest (a signed
 * CLI archive in the version layer is re-signed by `options.sign`, deterministically too).
 */
export async function restampImage(
  store: ImageStore,
  repository: string,
  rc: Manifest,
  version: string,
  options: RestampOptions = {},
): Promise<RestampedImage> {
  const json = JSON.parse(Buffer.from(rc.bytes).toString('utf8')) as ImageManifestJson | IndexJson;
  if ('manifests' in json && Array.isArray(json.manifests))
    return restampIndex(store, repository, rc, json as IndexJson, version, options);
  return restampSingle(store, repository, rc, json as ImageManifestJson, version, options);
}

export interface RestampOptions {
  /** Signs a re-stamped CLI archive whose rc copy was signed (see restampVersionLayer). */
  sign?: ArchiveSigner;
  /** The release's copy of a CLI archive of the version layer (see VersionLayerOptions). */
  reversionArchive?: VersionLayerOptions['reversionArchive'];
  rebuiltFile?: VersionLayerOptions['rebuiltFile'];
  /**
   * false: an image without our version layer changes its config only (no top layer).
   * `files-only`: the top layer as releases made before it carried folders and owners (verify).
   */
  topLayer?: boolean | 'files-only';
  /** Version scans of rc layers kept between runs (the user's cache), for the top layer. */
  layerScans?: LayerScanCache | undefined;
}

async function restampSingle(
  store: ImageStore,
  repository: string,
  rc: Manifest,
  json: ImageManifestJson,
  version: string,
  options: RestampOptions,
): Promise<RestampedImage> {
  const warnings: string[] = [];
  const from = rc.descriptor.digest;
  const config = JSON.parse(
    Buffer.from(await store.getBlob(repository, json.config.digest)).toString('utf8'),
  ) as OciImageConfig;
  const sourceVersion = versionOfConfig(config);
  // Built as this version already (from the release's own tag): nothing to re-version, its baked
  // files included; the image is promoted as it is.
  if (sourceVersion !== undefined && sameTag(sourceVersion, version))
    return { from, manifest: rc, blobs: [], children: [], versionLayer: false, sourceVersion, warnings };
  const labels = config.config?.Labels;
  const files = versionLayerFiles(labels);
  const last = json.layers.at(-1);
  let layer: Layer | undefined;
  if (files.length > 0) {
    if (
      last &&
      hasVersionLayer(
        labels,
        json.layers.map((l) => l.digest),
      )
    ) {
      layer = await restampVersionLayer(
        await store.getBlob(repository, last.digest),
        files,
        version,
        options.sign,
        {
          formats: parseFormatsLabel(labels?.[VERSION_FILES_FORMAT_LABEL]),
          ...(options.reversionArchive ? { reversionArchive: options.reversionArchive } : {}),
          ...(options.rebuiltFile ? { rebuiltFile: options.rebuiltFile } : {}),
        },
      );
    } else {
      warnings.push(
        `${repository}: the version layer its labels name is not its last layer; only the config was re-stamped, so ${files.join(', ')} still carry the rc's version`,
      );
    }
  }
  // No version layer of ours (Docker engine, buildx, another team's CI): the files that carry the
  // rc's version, wherever they are in the layer stack, are rewritten in a new top layer.
  const top =
    !layer && sourceVersion !== undefined && options.topLayer !== false
      ? await rewrittenTopLayer({
          store,
          repository,
          layers: json.layers,
          rcVersion: sourceVersion,
          version,
          mtimeSeconds: topLayerTime(config.created),
          filesOnly: options.topLayer === 'files-only',
          scans: options.layerScans,
        })
      : undefined;
  if (top?.layer && warnings.length > 0 && files.every((f) => top.files.includes(f))) warnings.length = 0;
  if (top?.binaries.length)
    warnings.push(
      `${repository}: ${top.binaries.slice(0, 3).join(', ')}${top.binaries.length > 3 ? ` and ${top.binaries.length - 3} more` : ''} carry the rc's version in compiled code, which no rewrite can change: only a rebuild as the release re-versions them`,
    );
  const topLayer = top?.layer;
  const newConfig = restampConfig(config, {
    version,
    from,
    ...(layer ? { versionLayer: { digest: layer.digest, diffId: layer.diffId } } : {}),
    ...(topLayer
      ? {
          topLayer: {
            diffId: topLayer.diffId,
            createdBy: `service-release: ${top!.files.length} file(s) re-versioned ${sourceVersion} -> ${version}`,
          },
        }
      : {}),
  });
  const configBytes = Buffer.from(JSON.stringify(newConfig));
  const configDigest = sha256Digest(configBytes);
  const isOci = (json.mediaType ?? rc.descriptor.mediaType) === MEDIA_TYPES.ociManifest;
  const layers = layer
    ? [...json.layers.slice(0, -1), { ...last!, digest: layer.digest, size: layer.size }]
    : topLayer
      ? [
          ...json.layers,
          {
            mediaType: isOci ? OCI_GZIP_LAYER : DOCKER_GZIP_LAYER,
            digest: topLayer.digest,
            size: topLayer.size,
          },
        ]
      : json.layers;
  const manifestJson: ImageManifestJson = {
    ...json,
    config: { ...json.config, digest: configDigest, size: configBytes.length },
    layers,
    // Docker's schema 2 has no annotations; its config label says the same.
    ...(isOci ? { annotations: { ...(json.annotations ?? {}), [RESTAMPED_FROM]: from } } : {}),
  };
  const bytes = Buffer.from(JSON.stringify(manifestJson));
  const blobs = [{ digest: configDigest, bytes: configBytes }];
  if (layer) blobs.push({ digest: layer.digest, bytes: Buffer.from(layer.bytes) });
  if (topLayer) blobs.push({ digest: topLayer.digest, bytes: Buffer.from(topLayer.bytes) });
  return {
    from,
    manifest: {
      descriptor: { mediaType: rc.descriptor.mediaType, digest: sha256Digest(bytes), size: bytes.length },
      bytes,
    },
    blobs,
    children: [],
    versionLayer: layer !== undefined,
    ...(topLayer ? { topLayer: { files: top!.files, comparison: top!.comparison } } : {}),
    sourceVersion,
    warnings,
  };
}

const OCI_GZIP_LAYER = 'application/vnd.oci.image.layer.v1.tar+gzip';
const DOCKER_GZIP_LAYER = 'application/vnd.docker.image.rootfs.diff.tar.gzip';

/** A multi-platform index: each image re-stamped, the index re-written over them. */
async function restampIndex(
  store: ImageStore,
  repository: string,
  rc: Manifest,
  json: IndexJson,
  version: string,
  options: RestampOptions,
): Promise<RestampedImage> {
  const result: RestampedImage = {
    from: rc.descriptor.digest,
    manifest: rc,
    blobs: [],
    children: [],
    versionLayer: false,
    sourceVersion: undefined,
    warnings: [],
  };
  const manifests: Descriptor[] = [];
  for (const child of json.manifests) {
    const isImage =
      child.mediaType === MEDIA_TYPES.ociManifest || child.mediaType === MEDIA_TYPES.dockerManifest;
    // Attestations and other artifacts name the rc's bytes: they stay with the rc.
    if (!isImage || child.platform?.os === 'unknown') {
      if (isImage) continue;
      manifests.push(child);
      continue;
    }
    const manifest = await store.getManifest(repository, child.digest);
    if (!manifest)
      throw new RuleError('SOURCE_MISSING', `${repository}@${child.digest} (in the rc's index) is missing`);
    const done = await restampSingle(
      store,
      repository,
      manifest,
      JSON.parse(Buffer.from(manifest.bytes).toString('utf8')),
      version,
      options,
    );
    result.blobs.push(...done.blobs);
    result.children.push(done.manifest);
    result.warnings.push(...done.warnings);
    result.versionLayer ||= done.versionLayer;
    if (done.topLayer) result.topLayer = mergeTopLayers(result.topLayer, done.topLayer);
    result.sourceVersion ??= done.sourceVersion;
    manifests.push({
      ...child,
      digest: done.manifest.descriptor.digest,
      size: done.manifest.descriptor.size,
    });
  }
  const isOci = (json.mediaType ?? rc.descriptor.mediaType) === MEDIA_TYPES.ociIndex;
  const bytes = Buffer.from(
    JSON.stringify({
      ...json,
      manifests,
      ...(isOci
        ? { annotations: { ...(json.annotations ?? {}), [RESTAMPED_FROM]: rc.descriptor.digest } }
        : {}),
    }),
  );
  result.manifest = {
    descriptor: { mediaType: rc.descriptor.mediaType, digest: sha256Digest(bytes), size: bytes.length },
    bytes,
  };
  return result;
}

/**
 * Write a re-stamped image by digest (no tag): the blobs the store lacks (HEAD, then upload),
 * the children of an index, then the manifest. Untagged, it changes nothing anyone pulls; the
 * promotion's tag writes come after. Returns the number of blobs uploaded.
 */
export async function pushRestamped(
  store: ImageStore,
  repository: string,
  image: RestampedImage,
): Promise<number> {
  let uploaded = 0;
  for (const blob of image.blobs) {
    if (await store.hasBlob(repository, blob.digest)) continue;
    await store.putBlob(repository, blob.digest, blob.bytes);
    uploaded++;
  }
  for (const child of image.children)
    await store.putManifest(repository, child.descriptor.digest, child.bytes, child.descriptor.mediaType);
  const { descriptor, bytes } = image.manifest;
  await store.putManifest(repository, descriptor.digest, bytes, descriptor.mediaType);
  return uploaded;
}

/** An index's proof: every platform child's rewritten files, each path once (the first child's). */
function mergeTopLayers(
  a: RestampedImage['topLayer'],
  b: NonNullable<RestampedImage['topLayer']>,
): NonNullable<RestampedImage['topLayer']> {
  if (!a) return b;
  const seen = new Set(a.files);
  const fresh = (p: string) => !seen.has(p);
  return {
    files: [...a.files, ...b.files.filter(fresh)],
    comparison: {
      equal: a.comparison.equal && b.comparison.equal,
      identical: [...a.comparison.identical, ...b.comparison.identical.filter(fresh)],
      versionOnly: [...a.comparison.versionOnly, ...b.comparison.versionOnly.filter((d) => fresh(d.path))],
      code: [...a.comparison.code, ...b.comparison.code],
    },
  };
}
