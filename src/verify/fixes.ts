import { imageTagOf } from '../version/image-tag.ts';
import { parseVersion } from '../version/parse.ts';
import type { ArtifactName } from './types.ts';

/** What the fix texts need to name concrete commands. */
export interface FixContext {
  apiUrl: string;
  images: { api: string; worker: string; web: string };
  /** The tag the deployment should be at; undefined when nothing readable says which. */
  tag: string | undefined;
}

/** `v1.2.3` for a release (images are always `v`-prefixed), the value itself otherwise. */
export function displayTag(tag: string | undefined): string {
  return tag === undefined ? '<release tag>' : imageTagOf(parseVersion(tag));
}

/** How to bring one artifact to the deployment's tag: the command or change, concretely. */
export function fixFor(name: ArtifactName, ctx: FixContext): string {
  const tag = displayTag(ctx.tag);
  switch (name) {
    case 'api':
      return `deploy ${ctx.images.api}:${tag} with SERVICE_VERSION=${tag}, together with ${ctx.images.worker}:${tag} (API and worker are upgraded together)`;
    case 'worker':
      return `upgrade the API and worker together: run ${ctx.images.api}:${tag} and ${ctx.images.worker}:${tag}, both with SERVICE_VERSION=${tag}`;
    case 'web':
      return `rebuild web with SERVICE_CLIENT_VERSION=${tag} (or deploy the ${ctx.images.web}:${tag} image)`;
    case 'cli':
      return `svc update --url ${ctx.apiUrl}`;
  }
}

/** The fix when an artifact cannot say its version (`unknown`, a hash, garbage). */
export function fixForUnversioned(name: ArtifactName, ctx: FixContext): string {
  const tag = displayTag(ctx.tag);
  switch (name) {
    case 'api':
      return `set SERVICE_VERSION=${tag} in the API container's environment and restart it (a production image has no source checkout to describe)`;
    case 'worker':
      return `set SERVICE_VERSION=${tag} in the worker container's environment, or run ${ctx.images.worker}:${tag} as built by \`release build\``;
    case 'web':
      return `rebuild web with SERVICE_CLIENT_VERSION=${tag} (or deploy the ${ctx.images.web}:${tag} image)`;
    case 'cli':
      return `svc update --url ${ctx.apiUrl}`;
  }
}

/** The fix when a probe asked for could not read its artifact. */
export function fixForUnreachable(name: ArtifactName, ctx: FixContext, source: string): string {
  switch (name) {
    case 'api':
      return `check that the API at ${ctx.apiUrl} is up and that --url is its base URL (${source} must answer the version document)`;
    case 'worker':
      return source.startsWith('docker ')
        ? `check that the worker runs on this engine (--docker-host) under the image "${ctx.images.worker}" (artifacts.worker.image in the config)`
        : `check that the worker's health endpoint ${source} is up and that --worker-url is its full /healthz URL`;
    case 'web':
      return `check that the web client is served at --web-url and that its build emitted version.json`;
    case 'cli':
      return `reinstall the CLI: npm install -g ${ctx.apiUrl.replace(/\/+$/, '')}/api/cli/download/service-cli.tar.gz`;
  }
}
