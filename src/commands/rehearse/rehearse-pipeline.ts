import type { Step } from '../../pipeline/step.ts';
import { rehearseBuildStep } from './rehearse-build-step.ts';
import {
  rehearseGateBlocksStep,
  rehearseInstallCliStep,
  rehearseSvcUpdateStep,
} from './rehearse-cli-steps.ts';
import type { RehearseContext } from './rehearse-context.ts';
import { rehearseDeployStep } from './rehearse-deploy-step.ts';
import { rehearseLanes } from './rehearse-lanes.ts';
import { rehearseNpmRegistryStep, rehearsePackageStep } from './rehearse-package-steps.ts';
import {
  rehearsePromoteDevStep,
  rehearsePromoteRcStep,
  rehearsePromoteReleaseStep,
} from './rehearse-promote-steps.ts';
import { rehearseStampStep } from './rehearse-stamp-step.ts';
import { rehearseVerifyStep } from './rehearse-verify-step.ts';
import {
  rehearseRegistryStep,
  rehearseRepositoryStep,
  rehearseWorkspaceStep,
} from './rehearse-workspace-steps.ts';

/** A full release, rehearsed on this machine (embedded store by default): docs/getting-started.md follows it. */
export const rehearsePipeline: readonly Step<RehearseContext>[] = [
  rehearseWorkspaceStep, // a temp directory and the environment every command gets
  rehearseRegistryStep, // docker only: a docker-registry of our own on loopback
  rehearseNpmRegistryStep, // --publish: a Verdaccio of our own on loopback, npm's config pointing at it
  rehearseRepositoryStep, // a git repo of the reference service, tagged v1.0.0-rc.1; release keygen
  rehearseStampStep, // release stamp: the version from git describe
  rehearseBuildStep, // release build: CLI archive (signed, key baked in) and three images (oci: no Docker at all)
  rehearsePromoteDevStep, // release promote --channel dev
  rehearsePromoteRcStep, // release promote --channel rc (signed); latest untouched
  rehearsePromoteReleaseStep, // tag v1.0.0, promote --from the rc: same digests, latest moves
  rehearsePackageStep, // --publish: dist-tags latest/next, npm install -g service-cli@1.0.0 prints v1.0.0
  rehearseDeployStep, // API, worker and web from the released images: processes or containers
  // The current CLI and the old one live in prefixes of their own and only read the deployment
  // and the store: their two paths run side by side, each step reported on its own.
  rehearseLanes('Check the deployment with the current and the old CLI, side by side', [
    [
      rehearseInstallCliStep, // npm install -g <api>/api/cli/download/service-cli.tar.gz
      rehearseVerifyStep('Verify the deployment is in step', 'cli-current'), // release verify
    ],
    [
      rehearseGateBlocksStep, // an old svc is blocked with the upgrade command, exit 3
      rehearseSvcUpdateStep, // svc update --url: the old CLI checks the release archive's signature, upgrades itself
      rehearseVerifyStep('Verify again with the updated CLI', 'cli-old'), // in step once more
    ],
  ]),
];
