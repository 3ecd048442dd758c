import type { Step } from '../pipeline/step.ts';
import { rehearseBuildStep } from '../steps/rehearse-build.ts';
import {
  rehearseGateBlocksStep,
  rehearseInstallCliStep,
  rehearseSvcUpdateStep,
} from '../steps/rehearse-cli.ts';
import { rehearseDeployStep } from '../steps/rehearse-deploy.ts';
import {
  rehearsePromoteDevStep,
  rehearsePromoteRcStep,
  rehearsePromoteReleaseStep,
} from '../steps/rehearse-promote.ts';
import { rehearseStampStep } from '../steps/rehearse-stamp.ts';
import { rehearseVerifyStep } from '../steps/rehearse-verify.ts';
import { rehearseWorkspaceStep } from '../steps/rehearse-workspace.ts';
import type { RehearseContext } from './rehearse-context.ts';

/** A full release, rehearsed on this machine with the embedded store: the README follows it. */
export const rehearsePipeline: readonly Step<RehearseContext>[] = [
  rehearseWorkspaceStep, // a temp git repo of the reference service, tagged v1.0.0-rc.1
  rehearseStampStep, // release stamp: the version from git describe
  rehearseBuildStep, // release build --engine oci: CLI archive and three images, no Docker
  rehearsePromoteDevStep, // release promote --channel dev
  rehearsePromoteRcStep, // release keygen + promote --channel rc (signed); latest untouched
  rehearsePromoteReleaseStep, // tag v1.0.0, promote --from the rc: same digests, latest moves
  rehearseDeployStep, // API, worker and web from the released images, on loopback
  rehearseInstallCliStep, // npm install -g <api>/api/cli/download/service-cli.tar.gz
  rehearseVerifyStep('Verify the deployment is in step', 'cli-current'), // release verify
  rehearseGateBlocksStep, // an old svc is blocked with the upgrade command, exit 3
  rehearseSvcUpdateStep, // svc update --url: the old CLI upgrades itself and passes
  rehearseVerifyStep('Verify again with the updated CLI', 'cli-old'), // in step once more
];
