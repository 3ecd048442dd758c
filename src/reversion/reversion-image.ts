import type { ImageArtifactConfig } from '../config/artifacts-schema.ts';
import { RuleError } from '../errors.ts';
import type { OciImageConfig } from '../oci-image/image-config.ts';
import { VERSION_LABEL } from '../oci-image/version-layer.ts';
import { type Descriptor, type ImageStore, type Manifest, MEDIA_TYPES } from '../registry/store.ts';
import { sameTag } from '../version/compare.ts';
import { compareRebuild, type RebuildComparison } from './compare-rebuild.ts';
import { imageTreeFiles, recipeTreeFiles } from './image-tree-files.ts';
import { rcCommitExists, rebuildFromRc } from './rebuild-from-rc.ts';
import { parseFormatsLabel, VERSION_FILES_FORMAT_LABEL } from './version-files.ts';
import { carriesVersion, replaceVersionStrings } from './version-strings.ts';

/** How a release gets the files an rc image bakes its version into, and the proof it is the rc's code. */
export interface ImageReversion {
  strategy: 'rebuild' | 'rewrite';
  reason: string;
  /** The release's copy of a baked file (format `rebuild` in the version layer) from the rc's. */
  file: (path: string, rcFile: Buffer) => Promise<Buffer>;
  /** The proof, once every file was asked for: equal modulo version strings, per file. */
  comparison: () => RebuildComparison;
}

interface RcImage {
  manifest: { config: Descriptor; layers: Descriptor[] };
  config: OciImageConfig;
}

/**
 * An rc image (one platform, or each child of an index) whose build baked the version into code
 * files (format `rebuild` in its version layer): how the release re-versions them. Undefined
 * when it has none, or when it already carries the release's version (built from its own tag).
 *
 * `rebuild` runs the build again on the rc's commit (its setup first) and proves every file its
 * recipe copies equal to the rc's, byte for byte or modulo version strings, on every platform.
 * `rewrite` replaces the rc's version strings (tag, SemVer, PEP 440) in the rc's own copies: the
 * same proof by construction, for any image from any engine or CI. Declared, either wins; by
 * default a rebuild runs when it can (a build command, the rc's tag in this repository, one
 * platform), else the rewrite, saying why.
 */
export async function imageReversionOfRc(input: {
  store: ImageStore;
  repository: string;
  rc: Manifest;
  artifact: ImageArtifactConfig | undefined;
  projectDir: string;
  /** The rc's tag (`--from v3.1.0-rc.1`); undefined for `--from <digest>`. */
  rcTag: string | undefined;
  version: string;
  env: Record<string, string | undefined>;
  progress: (line: string) => void;
}): Promise<ImageReversion | undefined> {
  const images = await rcImages(input.store, input.repository, input.rc);
  const first = images[0];
  if (!first) return undefined;
  const labels = first.config.config?.Labels;
  const rcVersion = labels?.[VERSION_LABEL];
  const formats = parseFormatsLabel(labels?.[VERSION_FILES_FORMAT_LABEL]);
  const baked = [...formats].filter(([, f]) => f.format === 'rebuild').map(([path]) => path);
  if (baked.length === 0 || !rcVersion || sameTag(rcVersion, input.version)) return undefined;
  const name = input.artifact?.name ?? input.repository;
  const declared = input.artifact?.reversion;
  if (declared !== 'rebuild') {
    const why =
      declared === 'rewrite'
        ? 'declared (reversion)'
        : await noRebuild(input.artifact, images.length, input.rcTag, input.projectDir);
    if (why) return rewrite(baked, rcVersion, input.version, `${why}: ${baked.join(', ')}`);
  }
  return rebuild({ ...input, name, images, baked, rcTag: input.rcTag ?? rcVersion });
}

/** Why a rebuild cannot run here, or undefined when it can. */
async function noRebuild(
  artifact: ImageArtifactConfig | undefined,
  platforms: number,
  rcTag: string | undefined,
  projectDir: string,
): Promise<string | undefined> {
  if (!artifact?.build) return 'no build command here can rebuild it, so its version strings are rewritten';
  if (platforms > 1)
    return `its rc is an index of ${platforms} platforms, which one build here cannot remake, so its version strings are rewritten`;
  if (!rcTag || !(await rcCommitExists(projectDir, rcTag)))
    return `the rc's commit (${rcTag ?? 'named by digest'}) is not a tag here, so its version strings are rewritten`;
  return undefined;
}

function rewrite(
  baked: readonly string[],
  rcVersion: string,
  version: string,
  reason: string,
): ImageReversion {
  const before = new Map<string, Buffer>();
  const after = new Map<string, Buffer>();
  return {
    strategy: 'rewrite',
    reason,
    async file(path, rcFile) {
      // latin1 maps every byte to one character and back: only the version strings change.
      const out = Buffer.from(replaceVersionStrings(rcFile.toString('latin1'), rcVersion, version), 'latin1');
      if (carriesVersion(out.toString('latin1'), rcVersion))
        throw new RuleError(
          'REWRITE_INCOMPLETE',
          `${path} still carries ${rcVersion} after its version strings were rewritten (a form glued to other text)`,
          { hint: 'nothing was written; declare reversion "rebuild" for this image, or cut a new rc' },
        );
      before.set(path, rcFile);
      after.set(path, out);
      return out;
    },
    comparison: () => {
      const missing = baked.filter((p) => !before.has(p));
      if (missing.length)
        throw new RuleError('VERSION_LAYER_INVALID', `the version layer has no ${missing.join(', ')}`);
      return compareRebuild(before, after, rcVersion, version);
    },
  };
}

async function rebuild(input: {
  store: ImageStore;
  repository: string;
  name: string;
  images: RcImage[];
  baked: string[];
  artifact: ImageArtifactConfig | undefined;
  projectDir: string;
  rcTag: string;
  version: string;
  env: Record<string, string | undefined>;
  progress: (line: string) => void;
}): Promise<ImageReversion> {
  const { artifact, baked, name } = input;
  if (!artifact?.build)
    throw new RuleError(
      'REBUILD_WITHOUT_COMMAND',
      `${name}: its image bakes the version into ${baked.join(', ')}, and it has no build command to rebuild it`,
      {
        hint: `nothing was written; give the artifact its build command again, or declare artifacts.${name}.reversion "rewrite"`,
      },
    );
  const prefixes = (artifact.files ?? []).map((f) => f.to.replace(/\/$/, ''));
  const mine = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));
  const rebuilt = await rebuildFromRc({
    projectDir: input.projectDir,
    rcTag: input.rcTag,
    version: input.version,
    at: `artifacts.${name}.build.command`,
    command: artifact.build.command,
    setup: artifact.build.setup,
    outputs: [],
    collect: (dir) => recipeTreeFiles(dir, artifact.files ?? []),
    env: input.env,
    progress: input.progress,
  });
  let comparison: RebuildComparison | undefined;
  for (const image of input.images) {
    const rcFiles = await imageTreeFiles(input.store, input.repository, image.manifest.layers, mine);
    comparison = compareRebuild(rcFiles, rebuilt, input.rcTag, input.version);
    const renamed = comparison.versionOnly.filter((d) => d.renamed && baked.includes(d.path));
    if (!comparison.equal || renamed.length) {
      const wrong = [
        ...comparison.code,
        ...renamed.map((d) => ({ ...d, reason: 'its name carries the version' })),
      ];
      throw new RuleError(
        'REBUILD_NOT_THE_RC',
        `${name} rebuilt from ${input.rcTag}'s commit as ${input.version} is not the rc's code: ${wrong
          .slice(0, 8)
          .map((d) => `${d.path} (${d.reason})`)
          .join(', ')}${wrong.length > 8 ? ` and ${wrong.length - 8} more` : ''}`,
        {
          hint: `nothing was written; the build must be reproducible, differing only in version strings. Cut a new rc, or declare artifacts.${name}.reversion "rewrite"`,
        },
      );
    }
  }
  const proven = comparison!;
  return {
    strategy: 'rebuild',
    reason:
      artifact.reversion === 'rebuild'
        ? 'declared (reversion)'
        : `the build bakes the version into ${baked.join(', ')}`,
    file: async (path) => rebuilt.get(path)!,
    comparison: () => proven,
  };
}

/** The rc's image manifests: itself, or each platform image of its index (not attestations). */
async function rcImages(store: ImageStore, repository: string, rc: Manifest): Promise<RcImage[]> {
  const json = parse<{ manifests?: Descriptor[]; config?: Descriptor; layers?: Descriptor[] }>(rc.bytes);
  const manifests: { config: Descriptor; layers: Descriptor[] }[] = [];
  if (Array.isArray(json.manifests)) {
    for (const child of json.manifests) {
      const isImage =
        child.mediaType === MEDIA_TYPES.ociManifest || child.mediaType === MEDIA_TYPES.dockerManifest;
      if (!isImage || child.platform?.os === 'unknown') continue; // attestations stay with the rc
      const m = await store.getManifest(repository, child.digest);
      const body = m && parse<{ config?: Descriptor; layers?: Descriptor[] }>(m.bytes);
      if (body?.config && body.layers) manifests.push({ config: body.config, layers: body.layers });
    }
  } else if (json.config && json.layers) manifests.push({ config: json.config, layers: json.layers });
  const out: RcImage[] = [];
  for (const manifest of manifests)
    out.push({
      manifest,
      config: parse<OciImageConfig>(await store.getBlob(repository, manifest.config.digest)),
    });
  return out;
}

function parse<T>(bytes: Uint8Array): T {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as T;
}
