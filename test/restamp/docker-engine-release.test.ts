import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyLayers, readLayer, type TreeNode } from '../../src/oci-image/read-layer.ts';
import { VERSION_LABEL } from '../../src/oci-image/version-layer.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { type Artifact, REPOS, recordDigests, stampedProject } from '../promote/project.ts';
import { type InProcessDeployment, startInProcessDeployment } from '../verify/in-process-deployments.ts';

// Issue 37, part 3, for a single image the Docker engine built (the private dockerd of
// test/helpers/dockerd.ts, its classic builder, `FROM scratch` so nothing is pulled) and pushed
// with `docker push`: its web files bake the rc's version in a COPY layer below another. Signed rc
// -> release from the rc adds one top layer (the Docker history's empty LABEL/ENV lines kept, one
// line added); every file says the release; `release verify --registry --require-signature` sees
// the release as the rc re-stamped, bound to it, in step against a site serving the release's files.

const RC = 'v4.0.0-rc.1';
const RELEASE = 'v4.0.0';
const env = { RELEASE_SIGNING_PASSPHRASE: 'docker-engine-passphrase' };
const WEB_FILES = ['/srv/web/app.js', '/srv/web/index.html', '/srv/web/version.json'];

let dockerd: Dockerd;
let registry: RunningRegistry;
let store: RegistryStore;
let repo: GitRepo;
let context: string;
let deployment: InProcessDeployment | undefined;
let docker: (args: string[]) => Buffer;
const rc = {} as Record<Artifact, string>;

const release = (args: string[]) => runRelease(args, { cwd: repo.dir, env, timeoutMs: 90_000 });

beforeAll(async () => {
  // vfs: the top layer holds files only and counts on the runtime leaving their folder as the rc
  // made it. overlay2 does not: it makes the missing folder in the new layer's own directory, as
  // root, and that copy hides the rc's (the export then shows srv/web/ as 0/0, not 1000/1000).
  [dockerd, registry] = await Promise.all([startDockerd({ storageDriver: 'vfs' }), startRegistry()]);
  store = new RegistryStore({ registry: registry.host, env: {} });
  repo = await stampedProject(RC, {
    registry: registry.host,
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  await writeKeyPair(repo.dir, env);
  for (const a of ['api', 'worker'] as const)
    rc[a] = await pushImage(store, REPOS[a], makeImage({ labels: { [VERSION_LABEL]: RC } }), RC);
  context = mkdtempSync(join(tmpdir(), 'sr-docker-web-'));
  mkdirSync(join(context, 'web'));
  mkdirSync(join(context, 'base/usr/bin'), { recursive: true });
  writeFileSync(join(context, 'base/usr/bin/tool'), '#!/bin/sh\n');
  symlinkSync('tool', join(context, 'base/usr/bin/tool-link'));
  writeFileSync(join(context, 'web/app.js'), `window.SERVICE_CLIENT_VERSION = "${RC}";\n`);
  writeFileSync(
    join(context, 'web/index.html'),
    `<!doctype html><meta name="service-client-version" content="${RC}"><title>web ${RC}</title>`,
  );
  writeFileSync(join(context, 'web/version.json'), JSON.stringify({ version: RC }));
  writeFileSync(join(context, 'robots.txt'), 'User-agent: *\n');
  writeFileSync(
    join(context, 'Dockerfile'),
    [
      'FROM scratch',
      'COPY base/ /',
      'COPY --chown=1000:1000 web/ /srv/web/',
      `LABEL ${VERSION_LABEL}=${RC}`,
      `ENV SERVICE_CLIENT_VERSION=${RC}`,
      'COPY robots.txt /srv/web/robots.txt',
    ].join('\n'),
  );
  const ref = `${registry.host}/${REPOS.web}:${RC}`;
  docker = (args: string[]) =>
    execFileSync('docker', args, {
      env: { ...process.env, DOCKER_HOST: dockerd.host, DOCKER_BUILDKIT: '0' },
      stdio: 'pipe',
      timeout: 120_000,
    });
  docker(['build', '-t', ref, context]);
  docker(['push', ref]);
  rc.web = (await store.resolve(REPOS.web, RC))!.digest;
  recordDigests(repo, rc, RC);
}, 180_000);

afterAll(async () => {
  await deployment?.close();
  repo?.remove();
  await Promise.all([dockerd?.stop(), registry?.stop()]);
  if (context) rmSync(context, { recursive: true, force: true });
});

describe('a web built by the Docker engine from signed rc to release', { timeout: 180_000 }, () => {
  it('gets one top layer with the rewritten files, and verify holds it to its rc', async () => {
    expect((await release(['promote', '--channel', 'rc'])).code).toBe(0);
    repo.tag(RELEASE);
    const run = await release(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain('web: v4.0.0-rc.1');
    expect(run.stdout + run.stderr).toContain('(config and a new top layer)');

    const read = async (ref: string) => {
      const m = (await store.getManifest(REPOS.web, ref))!;
      const json = JSON.parse(Buffer.from(m.bytes).toString()) as {
        config: { digest: string };
        layers: { digest: string }[];
      };
      return {
        mediaType: m.descriptor.mediaType,
        layers: json.layers.map((l) => l.digest),
        config: JSON.parse(Buffer.from(await store.getBlob(REPOS.web, json.config.digest)).toString()) as {
          rootfs: { diff_ids: string[] };
          history: { created_by?: string; empty_layer?: boolean }[];
        },
      };
    };
    const [mine, theirs] = [await read(RELEASE), await read(RC)];
    expect(mine.mediaType).toBe(MEDIA_TYPES.dockerManifest);
    expect(mine.layers.slice(0, -1)).toEqual(theirs.layers);
    expect(mine.config.rootfs.diff_ids.slice(0, -1)).toEqual(theirs.config.rootfs.diff_ids);
    // As Docker counts them: one history line per non-empty layer.
    const nonEmpty = (h: { empty_layer?: boolean }[]) => h.filter((e) => !e.empty_layer).length;
    expect(nonEmpty(mine.config.history)).toBe(mine.layers.length);
    expect(mine.config.history.at(-1)!.created_by).toContain(`${RC} -> ${RELEASE}`);

    const layers = [];
    for (const d of mine.layers) layers.push(await readLayer(await store.getBlob(REPOS.web, d), { what: d }));
    const tree = applyLayers(layers);
    for (const path of WEB_FILES) {
      const node = tree.get(path) as Extract<TreeNode, { type: 'file' }>;
      expect(node.content.toString(), path).toContain(RELEASE);
      expect(node.content.toString(), path).not.toContain('4.0.0-rc.1');
    }
    expect(tree.get('/usr/bin/tool-link')).toEqual({ type: 'symlink', target: 'tool' });

    // Docker itself pulls the release (checking each layer against its diff ID) and, from a
    // container of it, reads the release's files.
    const ref = `${registry.host}/${REPOS.web}:${RELEASE}`;
    docker(['pull', ref]);
    const container = docker(['create', ref, '/none']).toString().trim();
    const copied = join(context, 'copied');
    docker(['cp', `${container}:/srv/web`, copied]);
    // The folder keeps the owner the rc gave it (the top layer holds files only).
    const exported = join(context, 'exported.tar');
    docker(['export', '-o', exported, container]);
    const listing = execFileSync('tar', ['-tvf', exported, '--numeric-owner', 'srv/web/']).toString();
    expect(listing.split('\n')[0]).toMatch(/^d\S+ 1000\/1000 .* srv\/web\/$/);
    docker(['rm', container]);
    expect(readFileSync(join(copied, 'app.js'), 'utf8')).toBe(
      `window.SERVICE_CLIENT_VERSION = "${RELEASE}";\n`,
    );
    expect(readFileSync(join(copied, 'robots.txt'), 'utf8')).toBe('User-agent: *\n');

    // The site serves what the release image holds.
    const webRoot = join(context, 'served');
    mkdirSync(webRoot);
    for (const path of WEB_FILES)
      writeFileSync(
        join(webRoot, path.replace('/srv/web/', '')),
        (tree.get(path) as Extract<TreeNode, { type: 'file' }>).content,
      );
    deployment = await startInProcessDeployment({
      name: 'site',
      apiVersion: RELEASE,
      workerVersion: RELEASE,
      webRoot,
    });
    const verified = await release([
      'verify',
      ...['--url', deployment.url, '--web-url', deployment.webUrl, '--worker-url', deployment.workerUrl],
      ...['--expect', RELEASE, '--registry', '--require-signature', '--no-cli', '--json'],
    ]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const out = jsonOf<{
      inStep: boolean;
      provenance: {
        artifact: string;
        restampMatches: boolean;
        releaseSignature: string;
        codeLayers: unknown;
      }[];
    }>(verified);
    expect(
      out.provenance.find((p) => p.artifact === 'web'),
      verified.stdout,
    ).toMatchObject({
      restampMatches: true,
      releaseSignature: 'bound',
      codeLayers: { count: theirs.layers.length, equal: true },
    });
  });
});
