import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import * as z from 'zod';
import { ConfigError, ExternalError } from '../errors.ts';
import { registerSecret } from '../text/redact.ts';
import { parseJson, schemaReason } from './oci-schema.ts';

/** What a registry login gives: a user and password, or an identity (refresh) token. */
export type Credentials =
  | { kind: 'basic'; username: string; password: string; source: string }
  | { kind: 'identity-token'; token: string; source: string };

/** What is read of a docker config: other keys pass; a `null` entry or a number for a secret does not. */
const dockerConfigSchema = z.looseObject({
  auths: z
    .record(
      z.string(),
      z.looseObject({
        auth: z.string().optional(),
        username: z.string().optional(),
        password: z.string().optional(),
        identitytoken: z.string().optional(),
      }),
    )
    .optional(),
  credHelpers: z.record(z.string(), z.string()).optional(),
  credsStore: z.string().optional(),
});

interface DockerConfig {
  auths?: Record<string, { auth?: string; username?: string; password?: string; identitytoken?: string }>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

/**
 * Credentials for `host` the way docker finds them: `$DOCKER_CONFIG/config.json` (else
 * `~/.docker/config.json`); a `credHelpers` entry for the host wins, then `credsStore`, then
 * `auths` (`auth` base64 or `username`/`password`, `identitytoken`). Every secret is registered
 * for redaction before it is returned. Undefined means anonymous.
 */
export async function findCredentials(
  host: string,
  env: Record<string, string | undefined>,
): Promise<Credentials | undefined> {
  const dir = env['DOCKER_CONFIG'] || (env['HOME'] ? join(env['HOME'], '.docker') : undefined);
  if (!dir) return undefined;
  const file = join(dir, 'config.json');
  const config = await readDockerConfig(file);
  if (!config) return undefined;

  const helper = config.credHelpers?.[host] ?? config.credsStore;
  if (helper) {
    const fromHelper = await fromCredentialHelper(helper, host, env);
    if (fromHelper) return fromHelper;
  }
  const entry = Object.entries(config.auths ?? {}).find(([key]) => hostOf(key) === host)?.[1];
  if (!entry) return undefined;
  const source = `auths in ${file}`;
  if (entry.identitytoken) {
    registerSecret(entry.identitytoken);
    return { kind: 'identity-token', token: entry.identitytoken, source };
  }
  let { username, password } = entry;
  if (entry.auth) {
    registerSecret(entry.auth);
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0)
      throw new ConfigError(`the auths entry for ${host} in ${file} is not base64 "user:password"`, [], {
        hint: `log in again: docker login ${host}`,
      });
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  if (!username || password === undefined) return undefined;
  registerSecret(password);
  return { kind: 'basic', username, password, source };
}

/** `auths` keys may be `host`, `https://host`, `https://host/v1/`: compare by host only. */
export function hostOf(key: string): string {
  return key.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
}

async function readDockerConfig(file: string): Promise<DockerConfig | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const config = dockerConfigSchema.safeParse(parseJson(text));
  if (config.success) return config.data as DockerConfig;
  throw new ConfigError(
    `the docker config ${file} is not ${parseJson(text) === undefined ? 'valid JSON' : `a docker config (${schemaReason(config.error)})`}`,
    [],
    { hint: 'fix or remove the file, or point DOCKER_CONFIG at another directory' },
  );
}

/** `docker-credential-<name> get` with the host on stdin (the docker credential helper protocol). */
async function fromCredentialHelper(
  name: string,
  host: string,
  env: Record<string, string | undefined>,
): Promise<Credentials | undefined> {
  const program = `docker-credential-${name}`;
  const result = await execa(program, ['get'], {
    input: host,
    env: env as Record<string, string>,
    extendEnv: false,
    reject: false,
    timeout: 15_000,
    stripFinalNewline: true,
  });
  const stdout = String(result.stdout ?? '');
  if (result.exitCode !== 0) {
    // "credentials not found" is the protocol's way of saying: no login for this host.
    if (/credentials not found/i.test(stdout)) return undefined;
    const why =
      result.failed && result.exitCode === undefined ? 'could not be run' : `exited ${result.exitCode}`;
    throw new ExternalError('CREDENTIAL_HELPER_FAILED', `the credential helper ${program} ${why}`, {
      hint: `check that ${program} is on PATH and works (echo ${host} | ${program} get), or fix credHelpers/credsStore in the docker config`,
    });
  }
  let parsed: { Username?: string; Secret?: string };
  try {
    parsed = JSON.parse(stdout) as { Username?: string; Secret?: string };
  } catch {
    throw new ExternalError(
      'CREDENTIAL_HELPER_FAILED',
      `the credential helper ${program} printed something that is not JSON`,
      {
        hint: `run: echo ${host} | ${program} get`,
      },
    );
  }
  if (!parsed.Secret) return undefined;
  registerSecret(parsed.Secret);
  const source = `credential helper ${program}`;
  // The protocol marks an identity token with the username "<token>".
  if (parsed.Username === '<token>') return { kind: 'identity-token', token: parsed.Secret, source };
  return { kind: 'basic', username: parsed.Username ?? '', password: parsed.Secret, source };
}
