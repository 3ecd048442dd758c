import type { Command } from 'commander';
import type { SbomFlags } from './run-sbom.ts';

export function sbomCommand(program: Command): void {
  program
    .command('sbom')
    .description(
      "print an image's SBOM (CycloneDX, attached by release build), checked against signing.publicKey",
    )
    .argument('<image>', 'the image: <image>:<tag> or <image>@sha256:<hex> (or a tag of all images)')
    .action(async (image: string, options: SbomFlags, command: Command) => {
      const { runSbom } = await import('./run-sbom.ts');
      await runSbom(image, { ...command.optsWithGlobals(), ...options });
    });
}
