import { decideStampStep } from '../steps/decide-stamp.ts';
import { githubOutputStep } from '../steps/github-output.ts';
import { resolveVersionStep } from '../steps/resolve-version.ts';
import type { StampContext } from '../steps/stamp-context.ts';
import { verifyCheckStep } from '../steps/verify-check.ts';
import type { VerifyContext } from '../steps/verify-context.ts';
import { verifyProbeStep } from '../steps/verify-probe.ts';
import { writeStampFilesStep } from '../steps/write-stamp-files.ts';
import type { Step } from './step.ts';

/** Pipelines are ordered data: one entry per step, in the order they run. */

export const stampPipeline: readonly Step<StampContext>[] = [
  resolveVersionStep, // SERVICE_VERSION -> git describe -> unknown, and the repository's state
  decideStampStep, // channel, image tag and references; refusals happen here, before any write
  writeStampFilesStep, // env file, build args, CLI metadata, release record: all or none
  githubOutputStep, // $GITHUB_OUTPUT for the next workflow step
];

export const verifyPipeline: readonly Step<VerifyContext>[] = [
  verifyProbeStep, // api, worker, web and svc read at once, each within its own deadline
  verifyCheckStep, // one tag, nothing unknown, API = worker, the CLI's minimum and PATH order
];
