import { sideBySide } from '../../pipeline/side-by-side.ts';
import type { Step } from '../../pipeline/step.ts';
import { buildBaseImagesStep } from './build-base-images-step.ts';
import { buildCheckArtifactsStep } from './build-check-artifacts-step.ts';
import { buildCheckUntrackedStep } from './build-check-untracked-step.ts';
import { buildCheckVersionTagsStep } from './build-check-version-tags-step.ts';
import { buildChooseEngineStep } from './build-choose-engine-step.ts';
import { buildCliArchiveStep } from './build-cli-archive-step.ts';
import type { BuildContext } from './build-context.ts';
import { buildEvidenceStep } from './build-evidence-step.ts';
import { buildImagesStep } from './build-images-step.ts';
import { buildMinCliStep } from './build-min-cli-step.ts';
import { buildPrepareSbomCheckStep } from './build-prepare-sbom-check-step.ts';
import { buildReadRecordStep } from './build-read-record-step.ts';
import { buildRunCommandsStep } from './build-run-commands-step.ts';
import { buildWriteRecordStep } from './build-write-record-step.ts';

/**
 * `release build`: the CLI archive and the images, with the stamped version baked in, each as
 * `artifacts` in the config declares it (nothing here knows the reference service).
 * Pipelines are ordered data, one comment per step; each command's lives in its own module so a
 * command loads only its own steps (build and signing pull in Vite, esbuild and Sigstore).
 */
export const buildPipeline: readonly Step<BuildContext>[] = [
  buildReadRecordStep, // the stamped tag (SERVICE_VERSION wins), commit time, source label
  buildCheckUntrackedStep, // rc/release: no untracked file where the images take their files from
  buildMinCliStep, // the CLI built is not below the min_cli_version its own API serves
  buildCheckArtifactsStep, // each artifact says how --engine builds it; paths stay in the project
  buildChooseEngineStep, // --engine, else docker when one answers a ping, else oci
  // Independent, so side by side: making a missing base (compressing node, in this process), the
  // CLI's build command, and the images' build commands (in order among themselves). Nothing
  // takes the CLI archive before the images step, and a CLI is a package of its own.
  sideBySide('Check the base images and run the build commands', [
    [
      buildBaseImagesStep, // every base present; a missing layout base is made from this node (or the cache)
      buildPrepareSbomCheckStep, // the SBOM schema compiled in this process, off the critical path
    ],
    [buildCliArchiveStep], // the CLI's build command; its archive's SHA-256 (the api image serves it)
    [buildRunCommandsStep], // each image's build command (bundles, web client), then its files must exist
  ]),
  buildImagesStep, // one image per artifact, labelled, under build-<commit>: never a channel tag
  buildCheckVersionTagsStep, // the version's tag already on other bytes: promoting this will be refused
  buildEvidenceStep, // SBOM and provenance per image, read from its layers; signed and attached with the key
  buildWriteRecordStep, // digests, references and the archive's SHA-256, written atomically
];
