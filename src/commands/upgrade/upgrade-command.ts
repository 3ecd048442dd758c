import type { Command } from 'commander';
import { engineOptions, enginesTitle } from './engines.ts';
import { collect, positiveInt, wholeNumber } from './option-parsers.ts';
import type { ProveDeployment } from './prove-deployment.ts';
import type { UpgradeFlags } from './run-upgrade.ts';

/**
 * `release upgrade`. `loadProof` brings the verify checks the upgrade proves itself with (the
 * program hands in verify's, src/cli/commands.ts): loaded only when a proof runs.
 */
export function upgradeCommand(program: Command, loadProof: () => Promise<ProveDeployment>): void {
  const command = program
    .command('upgrade')
    .description(
      `upgrade API and worker (then web) on ${enginesTitle()} as one unit; roll every service back on failure`,
    )
    .requiredOption('--to <tag>', 'the release tag to run (resolved to digests in the configured registry)')
    .option(
      '--service <role=name>',
      'a service of the deployment, as its engine names it, and its role: api=, worker=, web=, or an image artifact run as a role (scheduler=); overrides the service found by image and command (repeatable)',
      collect,
      [],
    )
    .option('--deployment <name>', "take the URL and the service map from the config's deployments")
    .option('--url <api>', "the API's base URL (reads {url}/api/version)")
    .option(
      '--web-url <url>',
      "a web client's URL, for the final verify checks: one bare URL, or name=URL for each web artifact (repeatable); each web client given one moves to its own image",
      collect,
      [],
    );
  // Each engine's own flags (--compose, --docker-host), from the registry: a new engine adds its
  // flags there, not here.
  for (const option of engineOptions()) command.addOption(option);
  command
    .option('--timeout <ms>', 'deadline of the whole upgrade: convergence and versions', positiveInt, 300_000)
    .option('--rollback-timeout <ms>', 'deadline of the rollback, should one be needed', positiveInt, 300_000)
    .option('--monitor <ms>', 'how long each new task must keep running before it counts', wholeNumber, 5_000)
    .option('--require-cli-compatible', 'refuse a target that raises min_cli_version (default: warn)')
    .option('--dry-run', 'print the plan, change nothing')
    .action(async (options: UpgradeFlags, command: Command) => {
      const { runUpgrade } = await import('./run-upgrade.ts');
      await runUpgrade({ ...command.optsWithGlobals(), ...options }, async (request) =>
        (await loadProof())(request),
      );
    });
}
