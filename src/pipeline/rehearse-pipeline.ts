import type { RehearseContext } from '../rehearse/rehearse-context.ts';
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
import {
  rehearseRegistryStep,
  rehearseRepositoryStep,
  rehearseWorkspaceStep,
} from '../steps/rehearse-workspace.ts';
import type { Step } from './step.ts';

/** A full release, rehearsed on this machine (embedded store by default): the README follows it. */
export const rehearsePipeline: readonly Step<RehearseContext>[] = [
  rehearseWorkspaceStep, // a temp directory and the environment every command gets
  rehearseRegistryStep, // docker only: a docker-registry of our own on loopback
  rehearseRepositoryStep, // a git repo of the reference service, tagged v1.0.0-rc.1
  rehearseStampStep, // release stamp: the version from git describe
  rehearseBuildStep, // release build: CLI archive and three images (oci: no Docker at all)
  rehearsePromoteDevStep, // release promote --channel dev
  rehearsePromoteRcStep, // release keygen + promote --channel rc (signed); latest untouched
  rehearsePromoteReleaseStep, // tag v1.0.0, promote --from the rc: same digests, latest moves
  rehearseDeployStep, // API, worker and web from the released images: processes or containers
  rehearseInstallCliStep, // npm install -g <api>/api/cli/download/service-cli.tar.gz
  rehearseVerifyStep('Verify the deployment is in step', 'cli-current'), // release verify
  rehearseGateBlocksStep, // an old svc is blocked with the upgrade command, exit 3
  rehearseSvcUpdateStep, // svc update --url: the old CLI upgrades itself and passes
  rehearseVerifyStep('Verify again with the updated CLI', 'cli-old'), // in step once more
];
