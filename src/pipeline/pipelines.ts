import { buildBaseImagesStep } from '../steps/build-base-images.ts';
import { buildChooseEngineStep } from '../steps/build-choose-engine.ts';
import { buildCliArchiveStep } from '../steps/build-cli-archive.ts';
import type { BuildContext } from '../steps/build-context.ts';
import { buildImagesStep } from '../steps/build-images.ts';
import { buildReadRecordStep } from '../steps/build-read-record.ts';
import { buildStageStep } from '../steps/build-stage.ts';
import { buildWriteRecordStep } from '../steps/build-write-record.ts';
import { decideStampStep } from '../steps/decide-stamp.ts';
import { githubOutputStep } from '../steps/github-output.ts';
import { promoteApplyStep } from '../steps/promote-apply.ts';
import type { PromoteContext } from '../steps/promote-context.ts';
import { promotePlanStep } from '../steps/promote-plan.ts';
import { promoteRecordStep } from '../steps/promote-record.ts';
import { promoteSourcesStep } from '../steps/promote-sources.ts';
import { resolveVersionStep } from '../steps/resolve-version.ts';
import type { SignContext } from '../steps/sign-context.ts';
import { signImagesStep } from '../steps/sign-images.ts';
import { loadSigningKeyStep } from '../steps/sign-load-key.ts';
import { promoteSignStep } from '../steps/sign-promote.ts';
import { promoteCheckSignaturesStep } from '../steps/sign-promote-check.ts';
import { promoteSigningKeyStep } from '../steps/sign-promote-key.ts';
import { resolveSignTargetsStep } from '../steps/sign-resolve.ts';
import type { StampContext } from '../steps/stamp-context.ts';
import { writeStampFilesStep } from '../steps/write-stamp-files.ts';
import type { Step } from './step.ts';

/** Pipelines are ordered data: one entry per step, in the order they run. */

export const stampPipeline: readonly Step<StampContext>[] = [
  resolveVersionStep, // SERVICE_VERSION -> git describe -> unknown, and the repository's state
  decideStampStep, // channel, image tag and references; refusals happen here, before any write
  writeStampFilesStep, // env file, build args, CLI metadata, release record: all or none
  githubOutputStep, // $GITHUB_OUTPUT for the next workflow step
];

export const buildPipeline: readonly Step<BuildContext>[] = [
  buildReadRecordStep, // the stamped tag (SERVICE_VERSION wins), commit time, source label
  buildChooseEngineStep, // --engine, else docker when one answers a ping, else oci
  buildCliArchiveStep, // dist/service-cli.tar.gz with the version baked in (the api serves it)
  buildStageStep, // bundles, web client and archive laid out per image (the docker context)
  buildBaseImagesStep, // every base present; a missing layout base is made from this node
  buildImagesStep, // one image per artifact, labelled, into the engine or the store
  buildWriteRecordStep, // digests, references and the archive's SHA-256, written atomically
];

// Defined beside its steps so `release verify` starts without loading the other pipelines.
export { verifyPipeline } from '../steps/verify-pipeline.ts';

export const signPipeline: readonly Step<SignContext>[] = [
  loadSigningKeyStep, // unlock the private key first: a wrong passphrase fails before any network
  resolveSignTargetsStep, // tags -> manifest digests (refuses a tag that moved since the build)
  signImagesStep, // sign each digest, attach the bundle as a referrer, read it back
];

export const promotePipeline: readonly Step<PromoteContext>[] = [
  promoteSourcesStep, // version and source images (--from, else the build's digests); channel refusals
  promotePlanStep, // read the tags, compute the plan; immutable-tag refusals before any write
  promoteSigningKeyStep, // rc: unlock the key before any write (refused without one unless --no-sign)
  promoteCheckSignaturesStep, // release --from: every source digest validly signed, before any write
  promoteApplyStep, // version tags for all, then latest/dev for all; floating tags put back on failure
  promoteSignStep, // rc: sign each promoted digest and read it back (or record --no-sign)
  promoteRecordStep, // append to the record's promotions
];
