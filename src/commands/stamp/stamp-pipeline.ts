import type { Step } from '../../pipeline/step.ts';
import { decideStampStep } from './decide-stamp-step.ts';
import { explainDirtyStep } from './explain-dirty-step.ts';
import { githubOutputStep } from './github-output-step.ts';
import { resolveVersionStep } from './resolve-version-step.ts';
import type { StampContext } from './stamp-context.ts';
import { writeStampFilesStep } from './write-stamp-files-step.ts';

/**
 * `release stamp`: resolve, decide, write, report.
 * Pipelines are ordered data, one comment per step; each command's lives in its own module so a
 * command loads only its own steps (build and signing pull in Vite, esbuild and Sigstore).
 */
export const stampPipeline: readonly Step<StampContext>[] = [
  resolveVersionStep, // SERVICE_VERSION -> git describe -> unknown, and the repository's state
  explainDirtyStep, // a dirty tree: which files, and that an rc needs them committed
  decideStampStep, // channel, image tag and references; refusals happen here, before any write
  writeStampFilesStep, // env file, build args, CLI metadata, release record: all or none
  githubOutputStep, // $GITHUB_OUTPUT for the next workflow step
];
