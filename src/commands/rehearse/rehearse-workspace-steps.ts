import { join } from 'node:path';
import { validateConfig } from '../../config/validate.ts';
import { connectDocker, dockerAnswers, dockerEndpoint } from '../../docker-client/connect.ts';
import { ExternalError } from '../../errors.ts';
import { CACHE_DIR_ENV, userCacheDir } from '../../files/user-cache-dir.ts';
import type { Step } from '../../pipeline/step.ts';
import { startLocalRegistry } from '../../registry/local-registry.ts';
import { shortKeyId } from '../../signing/keys.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';
import { gitTag, isolatedPath, makeRehearsalRepo, makeWorkspace } from './workspace.ts';

function withCache(dir: string | undefined): Record<string, string> {
  return dir ? { [CACHE_DIR_ENV]: dir } : { RELEASE_NO_CACHE: '1' };
}

/** A throw-away directory for everything, and the environment every command in it gets. */
export const rehearseWorkspaceStep: Step<RehearseContext> = {
  title: 'Prepare a workspace',
  async run(ctx) {
    ctx.workspace = await makeWorkspace();
    ctx.releaseEnv = {
      PATH: await isolatedPath(ctx.workspace, []),
      HOME: join(ctx.workspace, 'home'),
      TMPDIR: ctx.env['TMPDIR'] ?? '/tmp',
      // npm's cache stays the user's: installing our archives needs nothing from it, and a
      // private cache would only slow the rehearsal down.
      npm_config_cache: ctx.env['npm_config_cache'] ?? join(ctx.env['HOME'] ?? ctx.workspace, '.npm'),
      RELEASE_SIGNING_PASSPHRASE: REHEARSAL.passphrase,
      // The user's own cache too (the base layer made from this node), not the throw-away HOME's:
      // unset when RELEASE_NO_CACHE turns it off, so the build then makes the base every time.
      ...withCache(userCacheDir(ctx.env)),
      ...(ctx.engine === 'docker' ? { DOCKER_HOST: dockerEndpoint(ctx.env) } : {}),
    };
    ctx.notes[this.title] = ctx.workspace;
  },
};

/** Docker only: the engine must answer, and images go to a registry of our own on loopback. */
export const rehearseRegistryStep: Step<RehearseContext> = {
  title: 'Start a local registry',
  skip: (ctx) => (ctx.engine === 'oci' ? 'the embedded OCI layout needs no registry' : false),
  async run(ctx) {
    const docker = connectDocker(ctx.env);
    if (!(await dockerAnswers(docker, 5_000))) {
      throw new ExternalError(
        'DOCKER_UNREACHABLE',
        `no Docker engine answers at ${dockerEndpoint(ctx.env)}`,
        {
          hint: 'start dockerd or set DOCKER_HOST; or rehearse without --engine docker',
        },
      );
    }
    ctx.registry = await startLocalRegistry({ dir: join(ctx.workspace!, 'registry') });
    ctx.notes[this.title] = `docker-registry on ${ctx.registry.host}; engine ${dockerEndpoint(ctx.env)}`;
  },
};

/**
 * A git repository holding the reference service, tagged as the release candidate, and the
 * release key pair (`release keygen`) made before anything is built: the build signs the CLI
 * archive and bakes the public key into svc, so the rehearsal shows the whole chain, from the
 * signed rc to `svc update` checking the re-signed release archive with its baked key.
 */
export const rehearseRepositoryStep: Step<RehearseContext> = {
  title: 'Make a git repository from the reference service',
  async run(ctx) {
    const config = {
      registry: ctx.registry ? `${ctx.registry.host}/rehearsal` : 'oci-layout:.release/oci',
      signing: { publicKey: 'keys/release-signing.pub', privateKey: 'keys/release-signing.key' },
      ...(ctx.publish ? { artifacts: { cli: { publish: true } } } : {}),
    };
    // From here on the rehearsal works on this repository and its configuration, not the caller's.
    ctx.config = validateConfig(config, 'the rehearsal configuration');
    ctx.repo = await makeRehearsalRepo(ctx.workspace!, config);
    await gitTag(ctx.repo, REHEARSAL.rcTag);
    const { json } = await releaseJson<{ keyId: string }>(['keygen', '--out', 'keys'], {
      cwd: ctx.repo,
      env: ctx.releaseEnv!,
    });
    ctx.notes[this.title] =
      `${ctx.repo} tagged ${REHEARSAL.rcTag}; images go to ${config.registry}; release key ${shortKeyId(json.keyId)}`;
  },
};
