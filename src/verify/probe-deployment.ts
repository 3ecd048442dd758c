import type { RoleCommand } from '../config/role-of-command.ts';
import { probeApi } from './probes/api.ts';
import { probeCli } from './probes/cli.ts';
import { probeWeb } from './probes/web.ts';
import { probeWorkerHealth } from './probes/worker-health.ts';
import type { ArtifactName, NotChecked, ProbeResult } from './types.ts';
import { deploymentEngine, type EngineTarget, nodesEngine, type WorkerEngine } from './worker-engines.ts';

/** One deployment to check: the API's base URL and, optionally, where to read the others. */
export interface VerifyTarget {
  name?: string;
  url: string;
  /** The one web client's URL. */
  webUrl?: string;
  /** Several web clients (an app, an admin dashboard): each web artifact's URL, by its name. */
  webUrls?: Record<string, string>;
  /** The worker's full health URL (`http://host:8081/healthz`). */
  workerUrl?: string;
  /**
   * Read the worker from its engine instead: the engine's containers and Swarm services, a
   * Compose project's containers, or whatever engine `engine.name` names (worker-engines.ts).
   */
  engine?: EngineTarget;
  /**
   * @deprecated The same as `engine`, under its first name (it held the Docker engine's address):
   * read when `engine` is not given.
   */
  docker?: EngineTarget;
  /** Also probe the API on every node's address (read from the engine of `engine`, else the default Docker engine). */
  urlPerNode?: boolean;
}

export interface ProbeOptions {
  env: Record<string, string | undefined>;
  /**
   * The engines a target's worker may be read from (their entries' readers, src/deployment-targets/);
   * default: the Docker engines (WORKER_ENGINES).
   */
  engines?: readonly WorkerEngine[];
  cwd: string;
  /** Deadline of each probe. */
  timeoutMs: number;
  /** Cancels every HTTP probe of the deployment (the per-target deadline of `--all`). */
  signal?: AbortSignal;
  workerImage: string;
  /** The roles run from the worker's image (one image, several roles): one reading per role. */
  workerRoles?: readonly RoleCommand[];
  /**
   * Other images that run one-shot jobs (`jobImages` of the config: a migration of the API's
   * image): read on the worker's engine for their jobs' last runs only.
   */
  jobImages?: readonly { image: string; roles: readonly RoleCommand[] }[];
  /** The variables a container's version may be in, the service's own first (then SERVICE_VERSION). */
  envNames?: readonly string[];
  /**
   * With `--registry`: also read which digests the engine runs for the API and web images (an
   * image the worker's probe reads already, as one of its roles, is left out).
   */
  digestImages?: { api?: string; web?: string };
  /**
   * Probe the CLI on PATH (`cliProgram`, the config's CLI's bin). A fleet probes it once and passes
   * `cliResults` instead. Without a program (the config declares no CLI) nothing is probed and the
   * report has no CLI row.
   */
  cli: boolean;
  cliProgram?: string;
  /**
   * Whether the service has a web client (`hasWebClient` of the config; default true). Without
   * one there is no web row, unless `--web-url` names one to read.
   */
  web?: boolean;
  /**
   * The web artifacts by name, when the config declares several: each is its own row (`web
   * admin`), read at its own `--web-url name=URL`, and one not given is named as not checked.
   */
  webs?: readonly string[];
  cliResults?: ProbeResult[];
}

export interface ProbedDeployment {
  results: ProbeResult[];
  /** Artifacts whose probe ran, so a missing one is a finding rather than a skip. */
  probed: ArtifactName[];
  /** `--registry`: API and web containers on the engine, for their running digests only. */
  digests: ProbeResult[];
  notChecked: NotChecked[];
}

/** Run every probe that applies, concurrently; each is independent and bounded by its own deadline. */
export async function probeDeployment(
  target: VerifyTarget,
  options: ProbeOptions,
): Promise<ProbedDeployment> {
  const http = { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  const notChecked: NotChecked[] = [];
  const probed: ArtifactName[] = ['api'];
  const pending: Promise<ProbeResult | ProbeResult[]>[] = [probeApi(target.url, http)];
  const reading = { env: options.env, timeoutMs: options.timeoutMs };
  if (target.urlPerNode)
    pending.push(nodesEngine(target, options.engines).readApiPerNode(target.url, reading, http));
  const engine = deploymentEngine(target, options.engines);

  if (target.workerUrl) {
    probed.push('worker');
    pending.push(probeWorkerHealth(target.workerUrl, http));
  } else if (engine) {
    probed.push('worker');
    pending.push(
      engine.readImage({
        image: options.workerImage,
        ...(options.workerRoles ? { roles: options.workerRoles } : {}),
        ...(options.envNames ? { envNames: options.envNames } : {}),
        ...reading,
      }),
    );
  } else {
    notChecked.push({ name: 'worker', reason: 'pass --worker-url <healthz url> or --docker to read it' });
  }
  if (engine && options.jobImages?.length) {
    probed.push('job');
    for (const { image, roles } of options.jobImages)
      pending.push(
        engine
          .readImage({
            image,
            roles,
            ...(options.envNames ? { envNames: options.envNames } : {}),
            ...reading,
          })
          .then((found) => found.filter((r) => r.name === 'job')),
      );
  }

  const webs = options.webs ?? [];
  if (target.webUrls) {
    probed.push('web');
    for (const [name, url] of Object.entries(target.webUrls))
      pending.push(probeWeb(url, http).then((r) => ({ ...r, role: name })));
    for (const name of webs.filter((w) => target.webUrls![w] === undefined))
      notChecked.push({ name: 'web', role: name, reason: `pass --web-url ${name}=<url> to read it` });
  } else if (target.webUrl) {
    probed.push('web');
    pending.push(probeWeb(target.webUrl, http));
  } else if (webs.length > 1) {
    for (const name of webs)
      notChecked.push({ name: 'web', role: name, reason: `pass --web-url ${name}=<url> to read it` });
  } else if (options.web !== false) {
    notChecked.push({ name: 'web', reason: 'pass --web-url <url> to read it' });
  }

  if (options.cliResults) {
    probed.push('cli');
    pending.push(Promise.resolve(options.cliResults));
  } else if (options.cli && options.cliProgram) {
    probed.push('cli');
    pending.push(
      probeCli({
        program: options.cliProgram,
        env: options.env,
        cwd: options.cwd,
        timeoutMs: options.timeoutMs,
      }),
    );
  } else if (!options.cli && options.cliProgram) {
    notChecked.push({ name: 'cli', reason: 'left out with --no-cli' });
  }
  // The config declares no CLI: there is none to check, left out or not, and no row says otherwise
  // (`release watch`, which leaves the CLI out by default, would tell the user to pass --cli).

  const digestImages = engine ? options.digestImages : undefined;
  const digests = digestImages
    ? Promise.all(
        (['api', 'web'] as const).flatMap((name) => {
          const image = digestImages[name];
          if (image === undefined) return [];
          return engine!.readImage({ name, image, ...reading });
        }),
      )
    : Promise.resolve([]);
  const [results, found] = await Promise.all([Promise.all(pending), digests]);
  // An API or web that does not run on this engine simply has no digest to compare.
  return { results: results.flat(), probed, notChecked, digests: found.flat().filter((r) => !r.error) };
}
