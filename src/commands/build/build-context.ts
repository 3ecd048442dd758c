import type { StagedArtifact } from '../../build/stage.ts';
import type { ImageArtifact } from '../../config/schema.ts';
import type { BuiltImage, EngineName } from '../../engine/engine.ts';
import type { EngineChoice } from '../../engine/select-engine.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { ReleaseRecord } from '../../record/release-record.ts';
import type { ImageStore } from '../../registry/store.ts';

export type BuildArtifact = ImageArtifact | 'cli';
export const BUILD_ARTIFACTS: readonly BuildArtifact[] = ['api', 'worker', 'web', 'cli'];

export interface BuildContext extends BaseContext {
  /** `--engine`; undefined lets the build choose (docker when one answers, else oci). */
  requestedEngine?: EngineName;
  push: boolean;
  /** `--only`, else everything. */
  only: ReadonlySet<BuildArtifact>;
  recordPath: string;
  /** Open a store by its `registry` string; one object per store for the whole run. */
  open: (registry: string) => ImageStore;
  /** Where the archive and the staged images go (`<cwd>/dist`). */
  distDir: string;
  record?: ReleaseRecord;
  /** The image tag built: the record's, or SERVICE_VERSION's when set. */
  tag?: string;
  /** SOURCE_DATE_EPOCH, else the commit time, else 0. */
  epoch?: number;
  /** The `org.opencontainers.image.source` label value. */
  source?: string;
  engine?: EngineChoice;
  cli?: { path: string; sha256: string; size: number };
  staged: Partial<Record<ImageArtifact, StagedArtifact>>;
  built: Partial<Record<ImageArtifact, BuiltImage>>;
}

/** The image artifacts this run builds, in order. */
export function imagesToBuild(ctx: BuildContext): ImageArtifact[] {
  return (['api', 'worker', 'web'] as const).filter((name) => ctx.only.has(name));
}
