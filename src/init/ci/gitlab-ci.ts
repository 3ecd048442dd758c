import type { CiBuild } from './ci-build.ts';
import { type DockerCommand, dockerCommandsOf } from './docker-commands.ts';
import { readYaml, record, scalar, strings } from './read-yaml.ts';

/**
 * The image builds of a `.gitlab-ci.yml`: `docker build` / `docker buildx build` and kaniko's
 * `executor` in each job's `before_script`, `script` and `after_script`, with the job's and the
 * file's literal `variables` replaced, and whether a later `docker push` of the job pushes them.
 * Jobs are read as written (`extends` and `include` are not followed). Pure.
 */
export interface GitlabRead {
  path: string;
  builds: CiBuild[];
  unreadable?: string;
}

// Top-level keys that are not jobs.
const RESERVED = new Set([
  'image',
  'services',
  'stages',
  'types',
  'before_script',
  'after_script',
  'variables',
  'cache',
  'include',
  'default',
  'workflow',
  'spec',
]);

export function readGitlabCi(path: string, text: string): GitlabRead {
  const out: GitlabRead = { path, builds: [] };
  const read = readYaml(text);
  if ('unreadable' in read) return { ...out, unreadable: read.unreadable };
  const data = record(read.data);
  if (!data) return { ...out, unreadable: 'not a map of keys' };
  const globals = variables(data['variables'], {});
  for (const [name, raw] of Object.entries(data)) {
    const job = record(raw);
    if (RESERVED.has(name) || name.startsWith('.') || !job) continue;
    const env = { ...globals, ...variables(job['variables'], globals) };
    const script = ['before_script', 'script', 'after_script'].flatMap((k) => strings(job[k])).join('\n');
    const found = dockerCommandsOf(script, env);
    for (const command of found.builds) {
      if (command.bake) continue;
      out.builds.push(buildOf(`${path} job ${name}`, command, found.pushed));
    }
  }
  return out;
}

function buildOf(at: string, command: DockerCommand, pushed: string[]): CiBuild {
  const images = [...new Set(command.tags.map(repositoryOf))];
  const push =
    command.push || command.tags.some((t) => pushed.includes(t) || pushed.includes(repositoryOf(t)));
  return {
    at,
    context: projectRelative(command.context ?? '.'),
    ...(command.file !== undefined ? { file: projectRelative(command.file) } : {}),
    fileBase: 'top',
    ...(command.target !== undefined ? { target: command.target } : {}),
    buildArgs: command.buildArgs,
    platforms: command.platforms,
    images,
    tags: command.tags,
    push,
    pushesLatest: command.tags.some((t) => t.endsWith(':latest')),
    pushesVersion: command.tags.some((t) => /CI_COMMIT_TAG|:v?\d+\.\d+/.test(t)),
  };
}

/** `$CI_PROJECT_DIR/api` is `api`: the job runs at the top of the repository. */
function projectRelative(path: string): string {
  const rest = path.replace(/^\$\{?CI_PROJECT_DIR\}?\/?/, '');
  return rest === '' ? '.' : rest;
}

function variables(raw: unknown, scope: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record(raw) ?? {})) {
    const text = scalar(value) ?? scalar(record(value)?.['value']);
    if (text !== undefined && !text.includes('$')) out[key] = text;
    else if (text !== undefined)
      out[key] = text.replace(/\$\{?(\w+)\}?/g, (all, name: string) => scope[name] ?? all);
  }
  return out;
}

function repositoryOf(reference: string): string {
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? reference.slice(0, colon) : reference;
}
