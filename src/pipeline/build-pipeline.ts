import { buildBaseImagesStep } from '../steps/build-base-images.ts';
import { buildChooseEngineStep } from '../steps/build-choose-engine.ts';
import { buildCliArchiveStep } from '../steps/build-cli-archive.ts';
import type { BuildContext } from '../steps/build-context.ts';
import { buildImagesStep } from '../steps/build-images.ts';
import { buildReadRecordStep } from '../steps/build-read-record.ts';
import { buildStageStep } from '../steps/build-stage.ts';
import { buildWriteRecordStep } from '../steps/build-write-record.ts';
import type { Step } from './step.ts';

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
