import { type Command, InvalidArgumentError, Option } from 'commander';
import type { VerifyFlags } from './run-verify.ts';

export function verifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      'prove a live deployment is in step: API, worker(s), web and the CLI the config declares share one tag',
    )
    .option('--url <api>', "the API's base URL (reads {url}/api/version)")
    .option('--web-url <url>', 'the web client (reads version.json, else the page meta tag)')
    .addOption(
      new Option('--worker-url <url>', "the worker's health URL (…/healthz)").conflicts([
        'docker',
        'dockerHost',
      ]),
    )
    .option('--docker', 'read the worker from the Docker engine: containers and Swarm services of its image')
    .option('--docker-host <sock>', 'the engine to read (unix:///path or tcp://host:port; implies --docker)')
    .option(
      '--compose <file>',
      "read the worker from this Compose project's containers (by Compose's labels), running or not; repeatable, first file first",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--project-name <name>',
      'with --compose: the Compose project name (default: as Compose chooses it)',
    )
    .option(
      '--url-per-node',
      "with --docker on a Swarm manager: also read the API's version on every node's address (--url's scheme, port and path)",
    )
    .option('--expect <tag>', 'require every artifact to be this tag')
    .option(
      '--registry [registry]',
      "the store of the release tags (default: the config's registry): each image's version and, for a release, that it is its signed rc re-stamped; with --docker also the digests running",
    )
    .option(
      '--require-signature',
      "drift unless each image's digest is signed by signing.publicKey (reads the config's registry)",
    )
    .option(
      '--require-attestations',
      "drift unless each image's digest has an SBOM and provenance signed by signing.publicKey and is in the signed release set (reads the config's registry)",
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

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a whole number above 0');
  }
  return n;
}
