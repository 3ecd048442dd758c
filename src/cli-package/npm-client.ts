import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ExternalError, RuleError } from '../errors.ts';
import { registerSecret } from '../text/redact.ts';
import type { PackageState, TarballDigest } from './package-plan.ts';

/**
 * The npm registry, through the `npm` program itself. Why the CLI and not HTTP: which registry,
 * which token, which proxy and CA are npm's own configuration (`.npmrc` layers, `${NPM_TOKEN}`
 * expansion in them, `NPM_CONFIG_*`, scoped registries, `_authToken`/`_auth` per registry), and
 * only npm reads it exactly as every npm user expects. The child gets a controlled environment:
 * what npm needs and its own variables, nothing else, and its output is scrubbed of any token
 * before it reaches a message.
 */
export interface NpmClient {
  /** The registry npm publishes to (`npm config get registry`). */
  registry(): Promise<string>;
  /** Versions (with their tarball digests where asked) and dist-tags; empty when not published. */
  readState(name: string, digestsOf?: string[]): Promise<PackageState>;
  /** `npm whoami`: proves the token before anything is written. */
  whoami(): Promise<string>;
  /** `npm publish <tarball> --tag <tag>`. */
  publish(tarball: string, tag: string): Promise<void>;
  addDistTag(name: string, version: string, tag: string): Promise<void>;
  removeDistTag(name: string, tag: string): Promise<void>;
  /** `npm pack <name>@<version>` into `destination`; the file written. */
  download(name: string, version: string, destination: string): Promise<string>;
}

export interface NpmClientOptions {
  /** The directory of the release config: its `.npmrc`, if any, is npm's user config. */
  configDir: string;
  env: Record<string, string | undefined>;
  timeoutMs?: number;
  /** npm's own retries of a failed request (`fetch-retries`); a probe with a deadline sets 0. */
  fetchRetries?: number;
}

const PASSED =
  /^(PATH|HOME|USER|LOGNAME|TMPDIR|LANG|LC_ALL|NODE_EXTRA_CA_CERTS|NPM_TOKEN|NODE_AUTH_TOKEN|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy)$/;

export function npmClient(options: NpmClientOptions): NpmClient {
  const env = npmEnv(options);
  const secrets = secretsIn(env);
  // Also hidden from every line the command line prints, whatever carries them there.
  for (const secret of secrets) registerSecret(secret);
  const run = async (args: string[], what: string): Promise<string> => {
    const result = await execa('npm', args, {
      env,
      extendEnv: false,
      cwd: options.configDir,
      reject: false,
      timeout: options.timeoutMs ?? 120_000,
      stdin: 'ignore',
    });
    if (result.exitCode === 0 && !result.failed) return result.stdout;
    throw npmFailure(
      what,
      `${result.stdout}\n${result.stderr}`,
      secrets,
      result.timedOut,
      (result as { code?: string }).code,
    );
  };

  return {
    async registry() {
      return (await run(['config', 'get', 'registry'], 'read the registry')).trim();
    },
    async readState(name, digestsOf = []) {
      let doc: { versions?: string | string[]; 'dist-tags'?: Record<string, string> };
      try {
        doc = JSON.parse(
          (await run(['view', name, 'versions', 'dist-tags', '--json', '--prefer-online'], `read ${name}`)) ||
            '{}',
        );
      } catch (error) {
        if (error instanceof ExternalError && error.code === 'NPM_NOT_FOUND')
          return { name, versions: {}, distTags: {} };
        throw error;
      }
      const list = typeof doc.versions === 'string' ? [doc.versions] : (doc.versions ?? []);
      const versions: Record<string, TarballDigest> = Object.fromEntries(list.map((v) => [v, {}]));
      for (const version of digestsOf.filter((v) => Object.hasOwn(versions, v))) {
        const dist = JSON.parse(
          (await run(
            ['view', `${name}@${version}`, 'dist.integrity', 'dist.shasum', '--json', '--prefer-online'],
            `read ${name}@${version}`,
          )) || '{}',
        ) as Record<string, string | undefined>;
        versions[version] = { integrity: dist['dist.integrity'], shasum: dist['dist.shasum'] };
      }
      return { name, versions, distTags: doc['dist-tags'] ?? {} };
    },
    async whoami() {
      return (await run(['whoami'], 'sign in (npm whoami)')).trim();
    },
    async publish(tarball, tag) {
      await run(['publish', tarball, '--tag', tag, '--ignore-scripts', '--json'], `publish ${tarball}`);
    },
    async addDistTag(name, version, tag) {
      await run(['dist-tag', 'add', `${name}@${version}`, tag], `set the dist-tag ${tag} of ${name}`);
    },
    async removeDistTag(name, tag) {
      await run(['dist-tag', 'rm', name, tag], `remove the dist-tag ${tag} of ${name}`);
    },
    async download(name, version, destination) {
      const out = await run(
        ['pack', `${name}@${version}`, '--json', '--pack-destination', destination, '--prefer-online'],
        `download ${name}@${version}`,
      );
      return join(destination, (JSON.parse(out) as { filename: string }[])[0]!.filename);
    },
  };
}

/** npm's environment: the caller's npm settings and what npm needs to run; nothing else. */
export function npmEnv(options: NpmClientOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value === undefined) continue;
    if (PASSED.test(key) || /^npm_config_/i.test(key)) env[key] = value;
  }
  const npmrc = join(options.configDir, '.npmrc');
  const userconfigSet = Object.keys(env).some((k) => k.toLowerCase() === 'npm_config_userconfig');
  if (!userconfigSet && existsSync(npmrc)) env['npm_config_userconfig'] = npmrc;
  if (options.fetchRetries !== undefined) env['npm_config_fetch_retries'] = String(options.fetchRetries);
  env['npm_config_update_notifier'] = 'false';
  env['npm_config_fund'] = 'false';
  env['npm_config_audit'] = 'false';
  return env;
}

/** Every token or password npm could be handed: from the environment and the `.npmrc` in use. */
function secretsIn(env: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (/token|_auth|password/i.test(key) && value.length >= 4) found.push(value);
  }
  const userconfig = Object.entries(env).find(([k]) => k.toLowerCase() === 'npm_config_userconfig')?.[1];
  if (userconfig) {
    try {
      for (const line of readFileSync(userconfig, 'utf8').split('\n')) {
        const m = /(?:_authToken|_auth|_password|token)\s*=\s*(\S+)/i.exec(line);
        if (m && !m[1]!.startsWith('${') && m[1]!.length >= 4) found.push(m[1]!);
      }
    } catch {
      // unreadable: npm will say so
    }
  }
  return found;
}

/** Remove every known secret and anything shaped like a credential from npm's output. */
export function scrub(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out
    .replace(/(_authToken|_auth|_password)\s*=\s*\S+/gi, '$1=***')
    .replace(/(authorization:\s*(?:bearer|basic)\s+)\S+/gi, '$1***')
    .replace(/\bnpm_[A-Za-z0-9]{20,}\b/g, '***');
}

function npmFailure(what: string, output: string, secrets: string[], timedOut: boolean, spawnCode?: string) {
  if (spawnCode === 'ENOENT')
    return new ExternalError('NPM_MISSING', 'npm is not installed or not on PATH', {
      hint: 'install Node.js with npm',
    });
  if (timedOut)
    return new ExternalError('NPM_TIMEOUT', `npm took too long to ${what}`, {
      hint: 'is the registry reachable?',
    });
  const text = scrub(output, secrets);
  let code = /npm error code (\S+)/.exec(text)?.[1];
  let summary = /npm error (?!code )(.*)/.exec(text)?.[1];
  try {
    const error = (
      JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as {
        error?: { code?: string; summary?: string };
      }
    ).error;
    code = error?.code ?? code;
    summary = error?.summary ?? summary;
  } catch {
    // not JSON: the text lines above
  }
  const reason = (summary ?? text.trim().split('\n').pop() ?? 'no output').slice(0, 400);
  if (code === 'E404') return new ExternalError('NPM_NOT_FOUND', `npm could not ${what}: ${reason}`);
  if (code === 'E401' || code === 'E403' || code === 'ENEEDAUTH')
    return new ExternalError(
      'NPM_AUTH_FAILED',
      `the npm registry refused to let us ${what} (${code}): ${reason}`,
      {
        hint: 'check the token: a `//<registry>/:_authToken=$\u007bNPM_TOKEN}` line in the .npmrc beside the config (or ~/.npmrc), with NPM_TOKEN set',
      },
    );
  if (code === 'EPUBLISHCONFLICT' || code === 'E409')
    return new RuleError(
      'PACKAGE_VERSION_IMMUTABLE',
      `npm could not ${what}: the version is already published (${reason})`,
      {
        hint: 'a published version never changes: promote again to compare its bytes, or cut a new version',
      },
    );
  return new ExternalError('NPM_FAILED', `npm could not ${what}${code ? ` (${code})` : ''}: ${reason}`, {
    hint: 'is the registry reachable and the .npmrc right? (npm config get registry)',
  });
}

/** The registry's identity of a tarball: `sha512-<base64>` and SHA-1 hex, as npm publish sends. */
export function tarballDigest(bytes: Uint8Array): Required<TarballDigest> {
  return {
    integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    shasum: createHash('sha1').update(bytes).digest('hex'),
  };
}
