import type { VersionScheme } from '../cli-version/version-scheme.ts';
import { imageTagOf } from '../version/image-tag.ts';
import { parseVersion } from '../version/parse.ts';
import type { ArtifactName } from './types.ts';

/** What the fix texts need to name concrete commands. */
export interface FixContext {
  apiUrl: string;
  images: { api: string; worker: string; web: string };
  /** The tag the deployment should be at; undefined when nothing readable says which. */
  tag: string | undefined;
  /** The service's own names (its version variables, its CLI); unset, the reference service's. */
  naming?: Naming;
}

/**
 * The names a fix uses for the service's own things: the variable its server and its web client
 * read their version from (`versionVariables`: `ACME_VERSION`, not the SERVICE_VERSION it does not
 * read), and its CLI: the program on PATH and the command that installs it from the API.
 */
export interface Naming {
  serverVariable?: string;
  clientVariable?: string;
  /** Several web clients: each web artifact's image, by its name (`admin` -> `acme-admin`). */
  webImages?: Record<string, string>;
  cli?: {
    program: string;
    /** The install command, `{url}` standing for the archive's URL on the API. */
    installCommand: string;
    /** The archive's file name on the API (`/api/cli/download/<name>`). */
    archiveName: string;
    /** Its package name (`@acme/cli`). */
    package?: string;
    /** The API serves the archive (`serveCli`, `cliArchive`): the install command's `{url}` is there. */
    served?: boolean;
    /** `release promote` publishes it to npm (`publish: true`). */
    published?: boolean;
    /**
     * On its own version line (`artifacts.cli.version: own`): judged by the API's
     * min_cli_version only, never against the service's tag.
     */
    ownLine?: boolean;
    /** How a CLI on its own line orders its versions against the API's minimum (semver unless said). */
    scheme?: VersionScheme;
  };
}

export const serverVariable = (ctx: FixContext) => ctx.naming?.serverVariable ?? 'SERVICE_VERSION';
const clientVariable = (ctx: FixContext) => ctx.naming?.clientVariable ?? 'SERVICE_CLIENT_VERSION';

/** The CLI's program name on PATH (the reference service's `svc` unless the config says). */
export function cliProgram(ctx: FixContext): string {
  return ctx.naming?.cli?.program ?? 'svc';
}

/**
 * How to install the CLI, from where the config says it is: the config's install command with the
 * archive's URL on the API when the API serves it (the reference service's always does), else
 * from npm when promote publishes it there, else the install command on the release's archive
 * (no download endpoint the service does not have).
 */
export function cliInstall(ctx: FixContext): string {
  const cli = ctx.naming?.cli;
  const install = cli?.installCommand ?? 'npm install -g {url}';
  if (!cli || cli.served) {
    const url = `${ctx.apiUrl.replace(/\/+$/, '')}/api/cli/download/${cli?.archiveName ?? 'service-cli.tar.gz'}`;
    return install.replaceAll('{url}', url);
  }
  const version =
    cli.ownLine || ctx.tag === undefined ? '' : `@${displayTag(ctx.tag).replace(/^v(?=\d)/, '')}`;
  if (cli.published && cli.package) return `npm install -g ${cli.package}${version}`;
  const of = cli.ownLine || ctx.tag === undefined ? 'of the release' : `of ${displayTag(ctx.tag)}`;
  return install.replaceAll('{url}', `<${cli.archiveName} ${of}>`);
}

/** How to bring the CLI to the API's version: the reference svc updates itself; any other is installed again. */
export function cliUpdate(ctx: FixContext): string {
  return cliProgram(ctx) === 'svc' ? `svc update --url ${ctx.apiUrl}` : cliInstall(ctx);
}

/** The tag as written (`v1.2.3` or `2026.7.0`: a project's tags keep their own spelling). */
export function displayTag(tag: string | undefined): string {
  return tag === undefined ? '<release tag>' : imageTagOf(parseVersion(tag));
}

/** A reading's name in a message: `web admin` for one of several web clients, else the artifact. */
export function readingLabel(r: { name: string; role?: string | undefined }): string {
  return r.name === 'web' && r.role && r.role !== r.name ? `web ${r.role}` : r.name;
}

/** How to rebuild a web client: the one, or one of several by its artifact name (`admin`). */
function webFix(ctx: FixContext, tag: string, role: string | undefined): string {
  const image = (role && ctx.naming?.webImages?.[role]) || ctx.images.web;
  return `rebuild ${role ?? 'web'} with ${clientVariable(ctx)}=${tag} (or deploy the ${image}:${tag} image)`;
}

/**
 * How to bring one artifact to the deployment's tag: the command or change, concretely. `role`:
 * which of several web clients (`admin`).
 */
export function fixFor(name: ArtifactName, ctx: FixContext, role?: string): string {
  const tag = displayTag(ctx.tag);
  switch (name) {
    case 'api':
      return `deploy ${ctx.images.api}:${tag} with ${serverVariable(ctx)}=${tag}, together with ${ctx.images.worker}:${tag} (API and worker are upgraded together)`;
    case 'worker':
      return `upgrade the API and worker together: run ${ctx.images.api}:${tag} and ${ctx.images.worker}:${tag}, both with ${serverVariable(ctx)}=${tag}`;
    case 'job':
      return fixForJob(ctx);
    case 'web':
      return webFix(ctx, tag, role);
    case 'cli':
      return cliUpdate(ctx);
  }
}

/** The fix when an artifact cannot say its version (`unknown`, a hash, garbage). */
export function fixForUnversioned(name: ArtifactName, ctx: FixContext, role?: string): string {
  const tag = displayTag(ctx.tag);
  switch (name) {
    case 'api':
      return `set ${serverVariable(ctx)}=${tag} in the API container's environment and restart it (a production image has no source checkout to describe)`;
    case 'worker':
      return `set ${serverVariable(ctx)}=${tag} in the worker container's environment, or run ${ctx.images.worker}:${tag} as built by \`release build\``;
    case 'job':
      return fixForJob(ctx);
    case 'web':
      return webFix(ctx, tag, role);
    case 'cli':
      return cliUpdate(ctx);
  }
}

/** The fix when a probe asked for could not read its artifact. */
export function fixForUnreachable(
  name: ArtifactName,
  ctx: FixContext,
  source: string,
  role?: string,
): string {
  switch (name) {
    case 'api':
      return `check that the API at ${ctx.apiUrl} is up and that --url is its base URL (${source} must answer the version document)`;
    case 'worker':
      return source.startsWith('docker ')
        ? `check that the worker runs on this engine (--docker-host) under the image "${ctx.images.worker}" (artifacts.worker.image in the config)`
        : `check that the worker's health endpoint ${source} is up and that --worker-url is its full /healthz URL`;
    case 'job':
      return fixForJob(ctx);
    case 'web':
      return role
        ? `check that ${role} is served at ${source.replace(/\/version\.json$/, '')} (--web-url ${role}=<url>) and that its build emitted version.json`
        : `check that the web client is served at --web-url and that its build emitted version.json`;
    case 'cli':
      return `reinstall the CLI: ${cliInstall(ctx)}`;
  }
}

/**
 * How to bring a one-shot job (a migration) to the deployment's tag: run it again from the
 * release's image, before the API (`release upgrade` runs jobs first).
 */
export function fixForJob(ctx: FixContext, job?: string): string {
  const tag = displayTag(ctx.tag);
  return `run the job${job ? ` ${job}` : ''} at ${tag} to completion before the API (\`release upgrade --to ${tag}\` runs jobs first; by hand: \`docker compose up ${job ?? '<job service>'}\`, or update its Swarm job service to ${tag})`;
}
