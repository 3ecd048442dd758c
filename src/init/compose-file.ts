import { commandWords } from '../text/command-words.ts';
import { readYamlValue } from '../text/parse-yaml.ts';

/**
 * The services of a Compose file as `docker compose` reads them: a real YAML parser (comments,
 * quoting, anchors and merge keys are YAML's business, not ours), with limits a hostile file
 * cannot get past (aliases expanded at most MAX_ALIASES times, MAX_TEXT characters). Values are
 * kept as written; what they mean for a build (paths leaving the repository, registries) is
 * plan-config's to decide. Pure.
 */
export interface ComposeService {
  name: string;
  image?: string;
  build?: ComposeBuild;
  /** The command it runs as an argv (a string split as Compose splits it): roles of one image differ by it. */
  command?: string[];
  /** `profiles:` it runs under; none means it always runs. */
  profiles?: string[];
  /** `restart:` as written (`"no"`, `on-failure`, `always`...). */
  restart?: string;
  /**
   * Another service waits for it to complete (`depends_on: {<it>: {condition:
   * service_completed_successfully}}`): a one-shot job, such as a migration.
   */
  awaited?: string;
}

export interface ComposeBuild {
  /** As written, relative to the compose file's folder (Compose's rule); `.` when left out. */
  context: string;
  /** As written, relative to the context. */
  dockerfile?: string;
  target?: string;
  args: Record<string, string>;
}

export type ComposeRead = { services: ComposeService[] } | { unreadable: string };

const MAX_ALIASES = 1000;
const MAX_TEXT = 4 * 1024 * 1024;

export function readComposeFile(text: string): ComposeRead {
  if (text.length > MAX_TEXT) return { unreadable: `over ${MAX_TEXT / 1024 / 1024} MB` };
  // merge: Compose files use `<<: *defaults`; YAML 1.2 left merge keys out, Compose keeps them.
  const read = readYamlValue(text, { merge: true, maxAliases: MAX_ALIASES });
  if ('problem' in read) return { unreadable: read.problem.message };
  const data = read.value;
  const services = record(record(data)?.['services']);
  if (!services) return { services: [] };
  const listed = Object.entries(services).map(([name, raw]) => serviceOf(name, record(raw) ?? {}));
  for (const [name, raw] of Object.entries(services)) {
    for (const [dep, how] of Object.entries(record(record(raw)?.['depends_on']) ?? {})) {
      const awaited = listed.find((s) => s.name === dep);
      if (awaited && !awaited.awaited && record(how)?.['condition'] === 'service_completed_successfully')
        awaited.awaited = name;
    }
  }
  return { services: listed };
}

function serviceOf(name: string, raw: Record<string, unknown>): ComposeService {
  const service: ComposeService = { name };
  if (typeof raw['image'] === 'string' && raw['image']) service.image = raw['image'];
  if (Array.isArray(raw['profiles'])) service.profiles = raw['profiles'].map(String);
  if (typeof raw['restart'] === 'string' || raw['restart'] === false)
    service.restart = raw['restart'] === false ? 'no' : String(raw['restart']);
  const command = raw['command'];
  if (typeof command === 'string' && command.trim()) service.command = commandWords(command);
  else if (Array.isArray(command) && command.length) service.command = command.map(String);
  // `entrypoint: ["sh", "-c"]` with the script as the command (a migration written so): the script
  // is a shell's payload, and what the container runs is both.
  const entrypoint = raw['entrypoint'];
  const shell = typeof entrypoint === 'string' || Array.isArray(entrypoint) ? commandWords(entrypoint) : [];
  if (service.command && shell.length > 1 && shell.at(-1) === '-c')
    service.command = [...shell, ...service.command];
  const build = raw['build'];
  if (typeof build === 'string') service.build = { context: build, args: {} };
  else if (record(build)) {
    const b = record(build)!;
    service.build = {
      context: typeof b['context'] === 'string' && b['context'] ? b['context'] : '.',
      args: argsOf(b['args']),
      ...(typeof b['dockerfile'] === 'string' && b['dockerfile'] ? { dockerfile: b['dockerfile'] } : {}),
      ...(typeof b['target'] === 'string' && b['target'] ? { target: b['target'] } : {}),
    };
  }
  return service;
}

/** `args:` as a map or as a list of `NAME=value` (Compose takes both); a bare name has no value. */
function argsOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (const item of raw) {
      const text = String(item);
      const eq = text.indexOf('=');
      out[eq < 0 ? text : text.slice(0, eq)] = eq < 0 ? '' : text.slice(eq + 1);
    }
  } else if (record(raw)) {
    for (const [key, value] of Object.entries(record(raw)!)) out[key] = value == null ? '' : String(value);
  }
  return out;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The files `docker compose` reads when none is named, in its order of preference. */
export const DEFAULT_COMPOSE_FILES = [
  'compose.yaml',
  'compose.yml',
  'docker-compose.yaml',
  'docker-compose.yml',
];

/**
 * `${VAR:-default}`, `${VAR-default}` and `$VAR` in an `image:` line, as they read with nothing
 * set: the default, or nothing. One scan: each `${` looks for its `}` once and the scan goes on
 * after it, so the time is linear in the text.
 */
export function withDefaults(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf('$', i);
    if (dollar < 0) return out + text.slice(i);
    out += text.slice(i, dollar);
    if (text[dollar + 1] === '{') {
      const close = text.indexOf('}', dollar + 2);
      if (close < 0) return out + text.slice(dollar);
      const inner = text.slice(dollar + 2, close);
      const dash = inner.indexOf('-');
      // `${VAR:-x}` and `${VAR-x}` give x; `${VAR:+x}`, `${VAR:?x}` and `${VAR}` give nothing.
      if (dash > 0 && /^[A-Za-z_][A-Za-z0-9_]*:?$/.test(inner.slice(0, dash))) out += inner.slice(dash + 1);
      i = close + 1;
    } else {
      let end = dollar + 1;
      while (end < text.length && /[A-Za-z0-9_]/.test(text[end]!)) end++;
      if (end === dollar + 1) out += '$';
      i = end;
    }
  }
  return out;
}
