import { RuleError } from '../errors.ts';
import { createLayerFromTar, type Layer, type LayerEntry, packTar } from '../oci-image/layer.ts';
import { applyLayers, type LayerNode, readLayer } from '../oci-image/read-layer.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import { compareRebuild, type RebuildComparison } from '../reversion/compare-rebuild.ts';
import { replaceVersionStrings, versionForms } from '../reversion/version-strings.ts';
import type { LayerScanCache } from './layer-scan-cache.ts';
import { parentFolders } from './parent-folders.ts';

/** Files bigger than this are not scanned for the version (media and binaries, not what prints it). */
const MAX_SCANNED_FILE = 8 * 1024 * 1024;
/** Kernel filesystems a container mounts over: whatever a layer put there is never read. */
const NOT_SCANNED = ['/proc/', '/sys/', '/dev/'];

/** The release's top layer over an rc image built by any engine or CI, and what it proves. */
export interface TopLayer {
  /** Undefined when no text file of the image carries the rc's version. */
  layer: Layer | undefined;
  /** The files it holds, re-versioned (image paths, sorted). */
  files: string[];
  /** Each file equals the rc's modulo version strings (by construction; the statement records it). */
  comparison: RebuildComparison;
  /** Files carrying the rc's version that are not text (a compiled binary): not rewritten. */
  binaries: string[];
}

/**
 * For an rc image without our version layer (built by the Docker engine, buildx or another team's
 * CI): every text file of its filesystem, as a container sees it (all layers applied, whiteouts
 * honoured, oci-image/read-layer.ts), that carries the rc's version (tag, SemVer or PEP 440
 * form), rewritten for the release and packed as one new layer to go on top, with the rc's
 * entries of their parent folders (owner, mode and time kept). Every rc layer
 * stays byte-identical; the new layer is packed deterministically (oci-image/layer.ts) at
 * `mtimeSeconds`, so re-stamping the same rc gives the same digest (verify relies on that).
 * Reads every layer of the image once, unless `scans` holds an earlier scan of it under the same
 * rc version (the release's promotion leaves them for its verifies): the cost of a release of an
 * image we did not build.
 */
export async function rewrittenTopLayer(input: {
  store: ImageStore;
  repository: string;
  layers: readonly Descriptor[];
  rcVersion: string;
  version: string;
  mtimeSeconds: number;
  /**
   * The files alone, root's, as releases made before the folders were carried have it: verify
   * only, so such a release still reads as its rc re-stamped. A release never makes it.
   */
  filesOnly?: boolean;
  /** Scans of earlier runs, by layer digest (layer-scan-cache.ts); each layer is read when absent. */
  scans?: LayerScanCache | undefined;
}): Promise<TopLayer> {
  const { rcVersion, version, store, repository, scans } = input;
  const { carries, pattern } = carrier(rcVersion);
  // Everything that decides what a scan keeps: a cached scan is reused only under the same.
  const scan = JSON.stringify({ pattern: pattern.source, max: MAX_SCANNED_FILE, skipped: NOT_SCANNED });
  const read: LayerNode[][] = [];
  for (const [i, layer] of input.layers.entries()) {
    // A cached scan still needs the layer in the store: the release is pushed over it.
    const cached = await scans?.read(layer.digest, scan);
    if (cached && (await store.hasBlob(repository, layer.digest))) {
      read.push(cached);
      continue;
    }
    const nodes = await readLayer(await store.getBlob(repository, layer.digest), {
      what: `${repository}'s rc layer ${i + 1} (${layer.digest.slice(0, 19)})`,
      keep: (path) => !NOT_SCANNED.some((p) => path.startsWith(p)),
      maxFileBytes: MAX_SCANNED_FILE,
      select: (_path, content) => carries(content.toString('latin1')),
    });
    await scans?.write(layer.digest, scan, nodes);
    read.push(nodes);
  }
  const before = new Map<string, Buffer>();
  const after = new Map<string, Buffer>();
  const binaries: string[] = [];
  const entries: LayerEntry[] = [];
  for (const [path, node] of [...applyLayers(read)].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (node.type !== 'file' || node.content.length === 0) continue; // not selected: no version in it
    if (node.content.includes(0)) {
      binaries.push(path); // a rewrite of different length would break a compiled program
      continue;
    }
    const out = Buffer.from(
      replaceVersionStrings(node.content.toString('latin1'), rcVersion, version),
      'latin1',
    );
    if (carries(out.toString('latin1')))
      throw new RuleError(
        'REWRITE_INCOMPLETE',
        `${path} still carries ${rcVersion} after its version strings were rewritten (a form glued to other text)`,
        { hint: 'nothing was written; rebuild the image as the release, or cut a new rc' },
      );
    before.set(path, node.content);
    after.set(path, out);
    const owner = input.filesOnly ? {} : { uid: node.uid, gid: node.gid };
    entries.push({ type: 'file', path, mode: node.mode, ...owner, content: out });
  }
  const files = [...after.keys()];
  const comparison = compareRebuild(before, after, rcVersion, version);
  if (files.length === 0) return { layer: undefined, files, comparison, binaries };
  // The files keep the rc's owner and mode, and so do their folders: each comes with the rc's own
  // entry (parent-folders.ts), never one made up, so a folder stays the service's where it was.
  const folders = input.filesOnly ? [] : parentFolders(read, files);
  const layer = await createLayerFromTar(
    await packTar([...folders, ...entries], input.mtimeSeconds, { parents: false }),
  );
  return { layer, files, comparison, binaries };
}

/**
 * Whether a text holds the rc's version: its tag, or a bare form with its pre-release part (as
 * reversion/version-strings.ts carriesVersion), not continued by a digit (`v1.2.0-rc.10` is
 * another rc). A form glued to letters still counts, so a rewrite that leaves one is refused.
 */
function carrier(rcVersion: string): { carries: (text: string) => boolean; pattern: RegExp } {
  const { tag, semver, pep440 } = versionForms(rcVersion);
  const forms = [tag, ...[semver, pep440].filter((f) => !/^\d+\.\d+\.\d+$/.test(f))];
  const pattern = new RegExp(
    `(?:${forms.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![0-9])`,
  );
  return { carries: (text) => pattern.test(text), pattern };
}

/** The entry time of the release's top layer: the rc's `created`, so it is the rc's own. */
export function topLayerTime(created: string | undefined): number {
  const ms = created ? Date.parse(created) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}
