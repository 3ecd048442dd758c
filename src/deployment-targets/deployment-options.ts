import { type Command, Option } from 'commander';
import type { DeploymentEngineEntry } from './deployment-engine-entry.ts';
import { DEPLOYMENT_ENGINES, engineTargetOptions } from './deployment-engines.ts';

/**
 * The flags that name one deployment, the same on `release verify` and `release watch` (both
 * build their targets with deployment-targets.ts), so neither accepts what the other refuses:
 * the URLs, then each deployment engine's own flags, from its entry (deployment-engines.ts).
 */
export function deploymentOptions(
  command: Command,
  urlDescription: string,
  engines: readonly DeploymentEngineEntry[] = DEPLOYMENT_ENGINES,
): Command {
  command
    .option('--url <api>', urlDescription)
    .option(
      '--web-url <url>',
      'the web client (reads version.json, else the page meta tag); with several web clients, name=URL for each (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .addOption(new Option('--worker-url <url>', "the worker's health URL (…/healthz)"));
  for (const option of engineTargetOptions(engines)) command.addOption(option);
  return command;
}
