import type { BuiltImage, EngineName } from '../../build-engines/engine.ts';
import type { EngineChoice } from '../../build-engines/select-engine.ts';
import { builtImageArtifacts, rolesOfImage } from '../../config/artifacts.ts';
import type { ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { Timer } from '../../pipeline/timings.ts';
import type { ReleaseRecord } from '../../record/release-record.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { imageReversion } from '../../reversion/artifact-strategies.ts';

export interface BuildContext extends BaseContext {
  /** `--engine`; undefined lets the build choose (docker when one answers, else oci). */
  requestedEngine?: EngineName;
  push: boolean;
  /** `--only` (artifact names), else every configured artifact. */
  only: ReadonlySet<string>;
  recordPath: string;
  /** Open a store by its `registry` string; one object per store for the whole run. */
  open: (registry: string) => ImageStore;
  record?: ReleaseRecord;
  /** The version built (baked into labels and env): the record's tag, or SERVICE_VERSION's when set. */
  tag?: string;
  /**
   * Where the images are written: `build-<12 hex of the commit>`, a tag no channel uses. Version
   * tags, `latest` and `dev` are written only by `release promote` (DESIGN.md "Channels and tags").
   */
  buildTag?: string;
  /** SOURCE_DATE_EPOCH, else the commit time, else 0. */
  epoch?: number;
  /** The `org.opencontainers.image.source` label value. */
  source?: string;
  engine?: EngineChoice;
  /** The CLI archive the CLI's build command wrote (absolute path), with its SHA-256 and size. */
  /** The CLI archive built; `signature` is the `<archive>.sig` beside it when the build signed it. */
  /** The CLI archive built; `version` is the one its package declares (own version line only). */
  cli?: { path: string; sha256: string; size: number; signature?: string; version?: string };
  built: Record<string, BuiltImage>;
  /** Where the build's time went, per artifact (and base image) and sub-step. */
  timer: Timer;
  /**
   * Each image's reversion (strategy and the files baking the version), found by reading every
   * file it takes: once, by the images step, then reused for the strategies `release build` prints.
   */
  reversions: Record<string, Awaited<ReturnType<typeof imageReversion>>>;
  /** What the evidence step wrote: where, and whether it was signed and attached (else why not). */
  evidence?: { dir: string; signed: boolean; reason?: string };
}

/** The image artifacts this run builds, in order (api, worker, web, then extra images). */
export function imagesToBuild(ctx: BuildContext): ImageArtifactConfig[] {
  return imagesIn(ctx.config, ctx.only);
}

/**
 * The images `--only` selects, each once, by the artifact that builds it: naming a role run from
 * another artifact's image (`--only worker`) builds that image.
 */
export function imagesIn(config: BuildContext['config'], only: ReadonlySet<string>): ImageArtifactConfig[] {
  return builtImageArtifacts(config).filter(
    (artifact) =>
      only.has(artifact.name) || rolesOfImage(config, artifact.image).some((r) => only.has(r.name)),
  );
}
