import { type Command, Option } from 'commander';

/**
 * The flags that name one deployment, the same on `release verify` and `release watch` (both
 * build their targets with deployment-targets.ts), so neither accepts what the other refuses.
 */
export function deploymentOptions(command: Command, urlDescription: string): Command {
  return command
    .option('--url <api>', urlDescription)
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
    );
}
