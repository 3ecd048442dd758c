import { type Command, InvalidArgumentError, Option } from 'commander';
import { deploymentOptions } from '../../deployment-targets/deployment-options.ts';
import { VSA_CHECKS } from '../../evidence/vsa-checks.ts';
import type { VerifyFlags } from './verify-flags.ts';

export function verifyCommand(program: Command): void {
  deploymentOptions(
    program
      .command('verify')
      .description(
        'prove a live deployment is in step: API, worker(s), web and the CLI the config declares share one tag',
      ),
    "the API's base URL (reads {url}/api/version); with --docker or --compose and no --url, found from the ports the API's containers publish (or listen on, on the host's network)",
  )
    .option(
      '--manifests [dir]',
      "offline: the deployment files (default: deploy.manifests) carry the release record's tag (or --expect) for every image, appVersion and version variable",
    )
    .option('--expect <tag>', 'require every artifact to be this tag')
    .option(
      '--registry [registry]',
      "the store of the release tags (default: the config's registry): each image's version and, for a release, that it is its signed rc re-stamped; with --docker also the digests running. With no deployment named (no --url), the release --expect names in the store alone",
    )
    .option(
      '--require-signature',
      "drift unless each image's digest is signed by signing.publicKey (reads the config's registry)",
    )
    .option(
      '--require-attestations',
      "drift unless each image's digest has an SBOM and provenance signed by signing.publicKey and is in the signed release set (reads the config's registry)",
    )
    .option(
      '--attest',
      "in step: sign SLSA verification summaries (one per image, one for the release set) with the verifier's key and attach them; implies --require-signature --require-attestations",
    )
    .option('--out <file>', 'with --attest: also write the summaries there (JSON Lines of Sigstore bundles)')
    .option(
      '--verifier-key <file>',
      "with --attest: the verifier's private key (default: $RELEASE_VERIFIER_KEY, then verifier.privateKey)",
    )
    .option(
      '--vsa <file|store>',
      "check verification summaries (a file --attest wrote, or a store holding them) for --expect's release, instead of a deployment",
    )
    .option('--verifier-pub <file>', "with --vsa: the verifier's public key (default: verifier.publicKey)")
    .option(
      '--require-check <check>',
      `with --vsa: refuse a summary whose policy did not include this check (${VSA_CHECKS.join(', ')}); repeatable`,
      checkList,
    )
    .addOption(new Option('--all', 'check every deployment in the config (deployments:)').conflicts(['url']))
    .option('--no-cli', 'leave out the CLI the config declares (its bin on PATH)')
    .addOption(
      new Option('--fail-on <grade>', 'exit 1 on drift only, or also on a warning the skew policy allows')
        .choices(['drift', 'warn'])
        .default('drift'),
    )
    .option('--timeout <ms>', 'deadline of each probe', positiveInt, 5_000)
    .option('--target-timeout <ms>', 'with --all: deadline of one whole deployment', positiveInt, 15_000)
    .option('--concurrency <n>', 'with --all: deployments checked at once', positiveInt, 16)
    .action(async (options: VerifyFlags, command: Command) => {
      const { runVerify } = await import('./run-verify.ts');
      await runVerify({ ...command.optsWithGlobals(), ...options });
    });
}

function checkList(value: string, previous: string[] = []): string[] {
  if (!(VSA_CHECKS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${VSA_CHECKS.join(', ')}`);
  return [...previous, value];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a whole number above 0');
  }
  return n;
}
