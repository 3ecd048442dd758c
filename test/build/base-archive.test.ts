import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// Air-gapped bases: the node base made by `release base-image`, written by skopeo as an OCI
// archive and as a `docker save` tarball (skopeo's docker-archive is that format), used as
// `oci-archive:<file>` and `docker-archive:<file>` by a daemonless build pushed to a real
// docker-registry; skopeo must read what was built. A `python` entrypoint on the node base builds
// with a warning that it cannot start.

const TAG = 'v1.0.0-rc.1';

describe('a base read from a file', () => {
  let registry: RunningRegistry;
  let repo: GitRepo;
  const dir = mkdtempSync(join(tmpdir(), 'sr-base-archive-'));
  const ociArchive = join(dir, 'node-oci.tar');
  const dockerSave = join(dir, 'node-save.tar');
  let built: { images: Record<string, { reference: string; digest: string }>; warnings: string[] };

  beforeAll(async () => {
    registry = await startRegistry();
    const layout = `oci-layout:${dir}/layout/node:20`;
    const base = await runRelease(['base-image', '--ref', layout], { cwd: dir, timeoutMs: 120_000 });
    expect(base.code, base.stderr).toBe(0);
    execFileSync('skopeo', ['copy', '-q', `oci:${dir}/layout/node:20`, `oci-archive:${ociArchive}:20`]);
    execFileSync('skopeo', [
      'copy',
      '-q',
      `oci:${dir}/layout/node:20`,
      `docker-archive:${dockerSave}:node:20`,
    ]);
    repo = fixtureProject('other-service', { registry: registry.host, insecureRegistries: [registry.host] });
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8')) as {
      artifacts: Record<string, Record<string, unknown>>;
    };
    config.artifacts['api']!['base'] = `oci-archive:${ociArchive}`;
    config.artifacts['web']!['base'] = `docker-archive:${dockerSave}:20`;
    config.artifacts['web']!['entrypoint'] = ['python', '/srv/web/server.mjs'];
    repo.write('release.config.json', JSON.stringify(config));
    repo.commit('bases from files');
    repo.tag(TAG);
    const stamp = await runRelease(['stamp'], { cwd: repo.dir });
    expect(stamp.code, stamp.stderr).toBe(0);
    const run = await runRelease(['build', '--engine', 'oci', '--push', '--json'], {
      cwd: repo.dir,
      timeoutMs: 240_000,
    });
    expect(run.code, run.stderr).toBe(0);
    built = jsonOf(run);
  }, 300_000);

  afterAll(async () => {
    await registry?.stop();
    repo?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds on an OCI archive and a docker save tarball, and skopeo reads both images', () => {
    const baseLayer = JSON.parse(
      execFileSync('skopeo', ['inspect', `oci:${dir}/layout/node:20`], { encoding: 'utf8' }),
    ).Layers[0] as string;
    for (const name of ['api', 'web']) {
      const image = built.images[name]!;
      const inspected = JSON.parse(
        execFileSync('skopeo', ['inspect', '--tls-verify=false', `docker://${image.reference}`], {
          encoding: 'utf8',
        }),
      ) as { Digest: string; Layers: string[]; Labels: Record<string, string> };
      expect(inspected.Digest).toBe(image.digest);
      // The OCI archive keeps the gzipped layer; docker save's is the same layer uncompressed.
      if (name === 'api') expect(inspected.Layers[0]).toBe(baseLayer);
      expect(inspected.Layers.length).toBeGreaterThan(1);
      expect(inspected.Labels['org.opencontainers.image.version']).toBe(TAG);
    }
  });

  it('warns that a python entrypoint is not on the node base, and only for that image', () => {
    const warnings = built.warnings.filter((w) => w.includes('entrypoint'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^web: its entrypoint's program python is not in the image \(not on its PATH/,
    );
  });
});
