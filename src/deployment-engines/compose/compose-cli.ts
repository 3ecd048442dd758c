import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { ExternalError, UsageError } from '../../errors.ts';
import { readYamlValue } from '../../text/parse-yaml.ts';

/**
 * The real Compose CLI, found at run time: the `docker compose` v2 plugin when the docker CLI has
 * it, else the standalone `docker-compose` (v1). Changes go through it (never a re-implementation
 * of Compose); it talks to the engine named by `DOCKER_HOST` in `env`.
 */
export interface ComposeCli {
  /** `docker compose` or `docker-compose`, for messages. */
  name: string;
  command: string;
  prefix: string[];
  version: string;
}

/** A project as the CLI is pointed at it: the user's files, then ours, and its name. */
export interface ComposeProject {
  files: string[];
  name: string;
  /** The directory of the first file: Compose resolves relative paths there. */
  dir: string;
}

/**
 * The least time one Compose call is given, even past the upgrade's deadline: a `compose up`
 * killed half-way leaves some containers recreated and others not, which is worse than a deadline
 * overrun by a few seconds (the deadline is judged as soon as the call returns).
 */
export const COMPOSE_CALL_MIN_MS = 120_000;

export async function findComposeCli(env: Record<string, string | undefined>): Promise<ComposeCli> {
  const candidates: [string, string[]][] = [
    ['docker', ['compose']],
    ['docker-compose', []],
  ];
  for (const [command, prefix] of candidates) {
    const result = await execa(command, [...prefix, 'version', '--short'], {
      env: env as NodeJS.ProcessEnv,
      extendEnv: false,
      reject: false,
      timeout: 15_000,
    }).catch(() => undefined);
    if (result && result.exitCode === 0 && /\d+\.\d+/.test(result.stdout)) {
      return { name: [command, ...prefix].join(' '), command, prefix, version: result.stdout.trim() };
    }
  }
  throw new ExternalError(
    'COMPOSE_NOT_FOUND',
    'neither `docker compose` (v2) nor `docker-compose` (v1) runs here',
    {
      hint: 'install the Compose plugin (docker-compose-plugin) or docker-compose, and make sure it is on PATH',
    },
  );
}

/**
 * The project name the way Compose itself would choose it, but decided here and always passed
 * with `-p`, so what is read (containers by label) and what is changed are the same project:
 * `--project-name`, else COMPOSE_PROJECT_NAME (environment, then the project's `.env`), else the
 * model's `name:` (v2), else the first file's directory, lower-cased without the characters
 * Compose drops.
 */
export function projectName(input: {
  flag: string | undefined;
  env: Record<string, string | undefined>;
  modelName: string | undefined;
  firstFile: string;
}): string {
  const dir = dirname(resolve(input.firstFile));
  const raw =
    input.flag ??
    input.env['COMPOSE_PROJECT_NAME'] ??
    dotEnvValue(dir, 'COMPOSE_PROJECT_NAME') ??
    input.modelName ??
    basename(dir);
  const name = raw.toLowerCase().replace(/[^-_a-z0-9]/g, '');
  if (!name) {
    throw new UsageError('COMPOSE_BAD_PROJECT', `"${raw}" leaves no Compose project name`, {
      hint: 'give one with --project-name <name> (lower-case letters, digits, - and _)',
    });
  }
  return name;
}

/** A variable of the project's `.env` file, which Compose reads for its own settings too. */
function dotEnvValue(dir: string, key: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, '.env'), 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (match?.[1] === key) return match[2]!.replace(/^(['"])(.*)\1$/, '$2') || undefined;
  }
  return undefined;
}

/** Run the CLI on the project; a non-zero exit is an ExternalError carrying its last words. */
export async function runCompose(
  cli: ComposeCli,
  project: { files: string[]; name?: string; dir: string },
  args: string[],
  options: { env: Record<string, string | undefined>; timeoutMs: number },
): Promise<string> {
  const argv = [
    ...cli.prefix,
    ...project.files.flatMap((f) => ['-f', f]),
    ...(project.name ? ['-p', project.name] : []),
    ...args,
  ];
  const result = await execa(cli.command, argv, {
    cwd: project.dir,
    env: options.env as NodeJS.ProcessEnv,
    extendEnv: false,
    reject: false,
    timeout: options.timeoutMs,
    all: true,
  });
  if (result.exitCode !== 0) {
    const tail = (result.all ?? '').trim().split('\n').slice(-6).join(' | ');
    throw new ExternalError(
      'COMPOSE_FAILED',
      `${cli.name} ${args.join(' ')} failed${result.timedOut ? ` (no end within ${options.timeoutMs} ms)` : ` (exit ${result.exitCode})`}: ${tail}`,
      { hint: `run it yourself to see all of it: ${cli.name} ${argv.slice(cli.prefix.length).join(' ')}` },
    );
  }
  return result.stdout;
}

/** The resolved model (`config`: variables substituted, files merged), parsed. */
export async function composeModel(
  cli: ComposeCli,
  project: { files: string[]; name?: string; dir: string },
  env: Record<string, string | undefined>,
): Promise<unknown> {
  const text = await runCompose(cli, project, ['config'], { env, timeoutMs: 60_000 }).catch(
    (error: Error) => {
      throw new UsageError('COMPOSE_INVALID', `Compose cannot read the project: ${error.message}`, {
        hint: 'fix the compose files (docker compose config shows the same error)',
      });
    },
  );
  const read = readYamlValue(text);
  if ('problem' in read)
    throw new UsageError('COMPOSE_INVALID', `Compose's model is not YAML we read: ${read.problem.message}`, {
      hint: 'docker compose config shows the model; fix the compose files it comes from',
    });
  return read.value;
}
