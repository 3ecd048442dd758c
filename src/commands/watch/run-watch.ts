import { hasWebClient, imageOfRole, webClients } from '../../config/artifacts.ts';
import { jobImages, roleCommands } from '../../config/role-of-command.ts';
import { SERVER_VERSION_VARIABLE, serverVersionVariables } from '../../config/version-variables.ts';
import { checkedExpect } from '../../deployment-targets/checked-expect.ts';
import {
  type DeploymentFlags,
  deploymentTargets,
  type TargetWording,
  targetReaders,
} from '../../deployment-targets/deployment-targets.ts';
import { ExternalError, RuleError, UsageError } from '../../errors.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import { isPortClash } from '../../processes/free-port.ts';
import { onStop, stopCleanly } from '../../processes/interrupt.ts';
import { exitCodeOf, type FailOn, renderFindings, reportJson, verdictLine } from '../../verify/report.ts';
import { serviceNaming } from '../../verify/service-naming.ts';
import type { DeploymentReport } from '../../verify/types.ts';
import { FlapGuard } from '../../watch/flap-guard.ts';
import { WatchMetrics } from '../../watch/metrics.ts';
import { type RoundOptions, type RoundResult, runRound, type WatchedTarget } from '../../watch/round.ts';
import { closeServer, createWatchServer, listenOn } from '../../watch/server.ts';
import { statusDocument } from '../../watch/status-json.ts';
import { loopRounds, parseDuration } from '../../watch/watch-loop.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';

export interface WatchFlags extends GlobalOptions, DeploymentFlags {
  listen?: string;
  interval: string;
  once?: boolean;
  cli?: boolean;
  expect?: string;
  failOn: FailOn;
  timeout: number;
  targetTimeout: number;
  roundTimeout?: number;
  concurrency: number;
}

const MIN_INTERVAL_MS = 200;

/** How `release watch` words a refusal of the flags naming its deployments. */
const WATCH_TARGETS: TargetWording = {
  command: 'watch',
  noUrl: {
    message: 'which deployment? --url <api base URL> or --all is required',
    hint: 'release watch --url https://svc.example.com --worker-url … --listen 127.0.0.1:9464',
  },
  allHint:
    'drop --web-url/--worker-url/--docker/--compose/--name with --all, or watch one deployment with --url',
};

export async function runWatch(flags: WatchFlags): Promise<void> {
  const intervalMs = parseDuration(flags.interval);
  if (intervalMs === undefined || intervalMs < MIN_INTERVAL_MS) {
    throw new UsageError(
      'WATCH_BAD_INTERVAL',
      `--interval "${flags.interval}" is not a duration of 200ms or more`,
      {
        hint: 'give it like --interval 15s, --interval 500ms or --interval 1m',
      },
    );
  }
  const listen = flags.listen === undefined ? undefined : parseListen(flags.listen);
  if (!flags.once && !listen) {
    throw new UsageError(
      'WATCH_NO_LISTEN',
      'where should the metrics be served? --listen <addr:port> is required',
      {
        hint: 'release watch --all --listen 127.0.0.1:9464 (or --once to run one round and exit)',
      },
    );
  }
  const base = await baseContext(flags);
  const expect = flags.expect === undefined ? undefined : checkedExpect(flags.expect);
  const targets = await watchedTargets(flags, base);
  const naming = await serviceNaming(base.config, base.configDir);
  const options: RoundOptions = {
    env: base.env,
    cwd: base.cwd,
    timeoutMs: flags.timeout,
    cli: Boolean(flags.cli),
    ...(naming.cli ? { cliProgram: naming.cli.program } : {}),
    web: hasWebClient(base.config),
    webs: webClients(base.config).map((a) => a.name),
    naming,
    workerRoles: roleCommands(base.config, imageOfRole(base.config, 'worker')),
    jobImages: jobImages(base.config, imageOfRole(base.config, 'worker')),
    envNames: [...serverVersionVariables(base.config).slice(1), SERVER_VERSION_VARIABLE],
    images: {
      api: imageOfRole(base.config, 'api'),
      worker: imageOfRole(base.config, 'worker'),
      web: imageOfRole(base.config, 'web'),
    },
    skew: base.config.skew,
    concurrency: flags.concurrency,
    targetTimeoutMs: flags.targetTimeout,
    roundTimeoutMs: flags.roundTimeout ?? Math.max(2_000, intervalMs),
    ...(expect !== undefined ? { expect } : {}),
    ...(await targetReaders(targets)),
  };
  const guard = new FlapGuard();

  if (flags.once) {
    const round = await runRound(targets, options, guard);
    if (base.json) printJson(onceJson(round, flags.failOn));
    else for (const line of renderRound(round)) printLine(line);
    const code = worst(round.reports.map((r) => exitCodeOf(r.findings, flags.failOn)));
    if (code !== 0) {
      const error =
        code === 3
          ? new ExternalError('WATCH_UNREACHABLE', 'could not read everything asked for')
          : new RuleError('WATCH_DRIFT', 'not in step');
      throw Object.assign(error, { reported: true });
    }
    return;
  }

  const metrics = new WatchMetrics();
  let last: RoundResult | undefined;
  const server = createWatchServer({
    metrics: async () => ({ body: await metrics.metrics(), contentType: metrics.contentType }),
    status: () => statusDocument(last, intervalMs),
  });
  const url = await listenOn(server, listen!.host, listen!.port).catch((error: unknown) => {
    throw new UsageError('WATCH_LISTEN', `cannot listen on ${flags.listen}: ${describeListenError(error)}`, {
      hint: 'choose another --listen address or port (port 0 picks a free one)',
      cause: error,
    });
  });
  printLine(
    `watching ${targets.length} deployment${targets.length === 1 ? '' : 's'} every ${flags.interval}; serving ${url} (/metrics, /, /healthz)`,
  );
  const stop = new AbortController();
  try {
    await stopCleanly(async () => {
      const unsubscribe = onStop((signal) => {
        printLine(`${signal}: stopping after the round under way`);
        stop.abort();
      });
      try {
        await loopRounds(
          async () => {
            const round = await runRound(targets, options, guard);
            for (const line of changes(last, round)) printLine(line);
            metrics.update(round);
            last = round;
          },
          { intervalMs, stop: stop.signal },
        );
      } finally {
        unsubscribe();
      }
    });
  } finally {
    await closeServer(server);
  }
}

/** The deployments to watch, built as verify builds its own: the config's with --all, else the one the flags name. */
async function watchedTargets(flags: WatchFlags, base: BaseContext): Promise<WatchedTarget[]> {
  const targets = await deploymentTargets(flags, base, WATCH_TARGETS);
  // Metrics and the page need a label: one deployment named by flags alone goes by its host.
  return targets.map((t) => ({ ...t, name: t.name ?? new URL(t.url).host }));
}

/** `127.0.0.1:9464`, `[::1]:9464`, `:9464` (every interface). */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new UsageError('WATCH_BAD_LISTEN', `--listen "${text}" is not addr:port`, {
      hint: 'give it like --listen 127.0.0.1:9464, --listen [::1]:9464 or --listen :9464 (every interface)',
    });
  }
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

function describeListenError(error: unknown): string {
  if (isPortClash(error)) return 'address already in use';
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRNOTAVAIL') return 'no such address on this machine';
  if (code === 'EACCES') return 'permission denied (a port below 1024?)';
  return error instanceof Error ? error.message : String(error);
}

/** One line per deployment whose verdict changed since the last round: a log worth keeping. */
function changes(before: RoundResult | undefined, after: RoundResult): string[] {
  const previous = new Map((before?.reports ?? []).map((r) => [r.name, verdictLine(r)]));
  return after.reports
    .filter((r) => previous.get(r.name) !== verdictLine(r))
    .map((r) => `${r.name}: ${verdictLine(r)}${codesOf(r)}`);
}

function codesOf(r: DeploymentReport): string {
  const codes = [...new Set(r.findings.filter((f) => f.severity !== 'notice').map((f) => f.code))];
  return codes.length ? ` (${codes.join(', ')})` : '';
}

function renderRound(round: RoundResult): string[] {
  return round.reports.flatMap((r) => [`${r.name}: ${verdictLine(r)}`, ...renderFindings(r.findings, '  ')]);
}

function onceJson(round: RoundResult, failOn: FailOn) {
  return {
    exitCode: worst(round.reports.map((r) => exitCodeOf(r.findings, failOn))),
    elapsedMs: Math.round(round.durationMs),
    deployments: round.reports.map(reportJson),
  };
}

function worst(codes: (0 | 1 | 3)[]): 0 | 1 | 3 {
  return codes.includes(3) ? 3 : codes.includes(1) ? 1 : 0;
}
