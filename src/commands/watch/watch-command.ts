import { type Command, InvalidArgumentError, Option } from 'commander';
import { deploymentOptions } from '../../deployment-targets/deployment-options.ts';
import type { WatchFlags } from './run-watch.ts';

export function watchCommand(program: Command): void {
  deploymentOptions(
    program
      .command('watch')
      .description(
        'keep verifying deployments: version drift as Prometheus metrics (/metrics) and a status page (/)',
      )
      .addOption(
        new Option('--all', 'watch every deployment in the config (deployments:)').conflicts(['url']),
      ),
    "the API's base URL of the one deployment to watch",
  )
    .option(
      '--name <name>',
      'with --url: the deployment label in metrics and on the page (default: the host)',
    )
    .option(
      '--listen <addr:port>',
      'where to serve /metrics, / and /healthz (127.0.0.1:9464; port 0 picks one)',
    )
    .option('--interval <duration>', 'time between rounds, with ±10% jitter (15s, 500ms, 1m)', '15s')
    .option('--once', 'run one round, print it as verify does and exit with its code (for cron)')
    .option(
      '--cli',
      "also read the CLI the config declares on this host's PATH (off: a server's PATH is rarely an operator's)",
    )
    .option('--no-cli', 'leave the CLI out (the default; accepted as verify accepts it)')
    .option('--expect <tag>', 'require every artifact to be this tag')
    .addOption(
      new Option('--fail-on <grade>', 'with --once: exit 1 on drift only, or also on a warning')
        .choices(['drift', 'warn'])
        .default('drift'),
    )
    .option('--timeout <ms>', 'deadline of each probe', positiveInt, 5_000)
    .option('--target-timeout <ms>', 'deadline of one whole deployment', positiveInt, 15_000)
    .option(
      '--round-timeout <ms>',
      'deadline of one whole round (default: the interval, at least 2 s)',
      positiveInt,
    )
    .option('--concurrency <n>', 'deployments probed at once', positiveInt, 16)
    .action(async (options: WatchFlags, command: Command) => {
      const { runWatch } = await import('./run-watch.ts');
      await runWatch({ ...command.optsWithGlobals(), ...options });
    });
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a whole number above 0');
  }
  return n;
}
