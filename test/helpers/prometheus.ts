import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, retryOnPortClash } from '../../src/processes/free-port.ts';
import { stopChild } from '../../src/processes/stop-child.ts';

/** Debian's Prometheus (`apt-get install prometheus`; .ci/run installs it). */
export const PROMETHEUS_BIN = '/usr/bin/prometheus';

export interface RunningPrometheus {
  url: string;
  /** An instant query through `/api/v1/query`: each series' labels and value. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** Everything it logged, for a failing test's message. */
  log(): string;
  /** Stop it and remove its config and storage. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * A real Prometheus on a free loopback port that scrapes `targets` (`host:port`) every
 * `scrapeIntervalS` seconds, with its storage in a temp dir. Fails fast, with the reason, when it
 * is not installed or exits before it is ready; a port taken between pick and listen is retried.
 */
export async function startPrometheus(options: {
  targets: string[];
  scrapeIntervalS: number;
}): Promise<RunningPrometheus> {
  if (!existsSync(PROMETHEUS_BIN)) {
    throw new Error(`${PROMETHEUS_BIN} not found: apt-get install prometheus (see .ci/run)`);
  }
  return retryOnPortClash(() => startOnFreePort(options));
}

async function startOnFreePort(options: {
  targets: string[];
  scrapeIntervalS: number;
}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'sr-prometheus-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      `  scrape_interval: ${options.scrapeIntervalS}s`,
      `  scrape_timeout: ${options.scrapeIntervalS}s`,
      'scrape_configs:',
      '  - job_name: release-watch',
      '    static_configs:',
      `      - targets: [${options.targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (output += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (output += t));
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    log: () => output,
    stop,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`query ${expr} failed: ${body.error}`);
      return body.data!.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
  };
}

/** Poll `/-/ready`; an exit first is an error carrying its log (so a port clash is retried). */
async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `prometheus exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log()}`,
      );
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`prometheus was not ready within 30 s:\n${log()}`);
}
