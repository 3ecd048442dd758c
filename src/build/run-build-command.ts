import { execa } from 'execa';
import { type VersionVariables, versionEnv } from '../config/version-variables.ts';
import { ExternalError } from '../errors.ts';

/** How long one build command may run. */
const COMMAND_TIMEOUT_MS = 15 * 60_000;

/**
 * Run an artifact's build command: an argv array, no shell, in the project's folder, with the
 * version in the environment (`SERVICE_VERSION`, `SERVICE_CLIENT_VERSION` and the service's own
 * version variables, all the tag: `buildCommandEnv`).
 * Its output goes to progress; a failure carries the end of it.
 */
export async function runBuildCommand(options: {
  /** `artifacts.<name>.build.command`, for messages. */
  at: string;
  command: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  progress: (line: string) => void;
}): Promise<void> {
  const [file, ...args] = options.command;
  const tail: string[] = [];
  const child = execa(file!, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    shell: false,
    reject: false,
    all: true,
    stdin: 'ignore',
    timeout: COMMAND_TIMEOUT_MS,
    buffer: false,
  });
  let pending = '';
  child.all?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) keep(line);
  });
  const keep = (line: string) => {
    const text = line.trimEnd();
    if (!text) return;
    options.progress(text);
    tail.push(text);
    if (tail.length > 12) tail.shift();
  };
  const result = await child;
  keep(pending);
  if (result.exitCode === 0) return;
  const why =
    (result as { code?: string }).code === 'ENOENT'
      ? `${file} was not found`
      : result.timedOut
        ? `it ran longer than ${COMMAND_TIMEOUT_MS / 60_000} minutes`
        : `it exited with ${result.exitCode ?? result.signal}`;
  throw new ExternalError(
    'BUILD_COMMAND_FAILED',
    `${options.at} (${options.command.join(' ')}) failed: ${why}${tail.length ? `\n${tail.join('\n')}` : ''}`,
    { hint: `run the command in ${options.cwd} to see its full output; it runs without a shell` },
  );
}

/**
 * The environment of a build command: ours, with the version to bake in under every version
 * variable, the standard names and the service's own (`versionVariables`: a Vite client reads
 * `VITE_ACME_VERSION`).
 */
export function buildCommandEnv(
  env: Record<string, string | undefined>,
  tag: string,
  extra: Record<string, string> = {},
  config: { versionVariables?: Partial<VersionVariables> | undefined } = {},
): Record<string, string | undefined> {
  return { ...env, ...versionEnv(config, tag), ...extra };
}
