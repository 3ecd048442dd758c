import type { Command } from 'commander';
import { adoptCommand } from '../commands/adopt/adopt-command.ts';
import { baseImageCommand } from '../commands/base-image/base-image-command.ts';
import { buildCommand } from '../commands/build/build-command.ts';
import { bumpCommand } from '../commands/bump/bump-command.ts';
import { initCommand } from '../commands/init/init-command.ts';
import { keygenCommand } from '../commands/keygen/keygen-command.ts';
import { mirrorCommand } from '../commands/mirror/mirror-command.ts';
import { promoteCommand } from '../commands/promote/promote-command.ts';
import { rehearseCommand } from '../commands/rehearse/rehearse-command.ts';
import { sbomCommand } from '../commands/sbom/sbom-command.ts';
import { signCommand } from '../commands/sign/sign-command.ts';
import { stampCommand } from '../commands/stamp/stamp-command.ts';
import { upgradeCommand } from '../commands/upgrade/upgrade-command.ts';
import { verifyCommand } from '../commands/verify/verify-command.ts';
import { watchCommand } from '../commands/watch/watch-command.ts';

/** The program's description and the options every command takes (also read by docs:reference). */
export function defineProgram(program: Command): Command {
  return program
    .description('release orchestration and version-consistency checks for API, worker, web and svc')
    .option('--cwd <dir>', 'the project to work on (default: the working directory)')
    .option('--config <file>', 'configuration file (default: release.config.ts and friends in --cwd)')
    .option('--json', 'machine-readable output on stdout');
}

/**
 * Every `release` command, in help order. Each definition only declares flags; the work is
 * imported when the command runs, so `release --help` and a typo cost nothing.
 */
export const commandDefinitions: ((program: Command) => void)[] = [
  initCommand, // start a config (and a CI pipeline) from what is in an existing repository
  stampCommand, // resolve and stamp the version
  buildCommand, // build the CLI archive and the images with the version baked in
  adoptCommand, // or take the images the project's own CI built as the build of the version
  baseImageCommand, // make the minimal node base image the builds start from
  promoteCommand, // tag the built images into dev, rc or release (manifest copy, all or nothing)
  verifyCommand, // prove a live deployment (or a fleet) is in step
  watchCommand, // keep verifying: drift as Prometheus metrics and a status page
  keygenCommand, // create the key pair that signs release candidates
  signCommand, // sign images by digest (release candidates)
  sbomCommand, // print an image's signed SBOM
  mirrorCommand, // carry a signed release between stores (air gaps): verified, digests unchanged
  bumpCommand, // GitOps: write the release into charts, kustomizations and manifests in one change
  // move API and worker (then web) of a deployment to a tag as one unit, proved by verify's checks
  (program) =>
    upgradeCommand(program, async () => (await import('../verify/deployment-proof.ts')).proveDeployment),
  rehearseCommand, // the whole release, rehearsed on this machine with the embedded store
];
