import type { Step } from '../../pipeline/step.ts';
import { buildBaseImagesStep } from './build-base-images-step.ts';
import { buildChooseEngineStep } from './build-choose-engine-step.ts';
import { buildCliArchiveStep } from './build-cli-archive-step.ts';
import type { BuildContext } from './build-context.ts';
import { buildImagesStep } from './build-images-step.ts';
import { buildReadRecordStep } from './build-read-record-step.ts';
import { buildStageStep } from './build-stage-step.ts';
import { buildWriteRecordStep } from './build-write-record-step.ts';

/**
 * `release build`: the CLI archive and the images, with the stamped version baked in.
 * Pipelines are ordered data, one comment per step; each command's lives in its own module so a
 * command loads only its own steps (build and signing pull in Vite, esbuild and Sigstore).
 */
export const buildPipeline: readonly Step<BuildContext>[] = [
  buildReadRecordStep, // the stamped tag (SERVICE_VERSION wins), commit time, source label
  buildChooseEngineStep, // --engine, else docker when one answers a ping, else oci
  buildCliArchiveStep, // dist/service-cli.tar.gz with the version baked in (the api serves it)
  buildStageStep, // bundles, web client and archive laid out per image (the docker context)
  buildBaseImagesStep, // every base present; a missing layout base is made from this node
  buildImagesStep, // one image per artifact, labelled, into the engine or the store
  buildWriteRecordStep, // digests, references and the archive's SHA-256, written atomically
];
