import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import { fixtureProject, layerFiles } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// The CLI archive goes into the api image only where the config asks (`serveCli: true`, or a
// `cliArchive` path): fixtures/acme-oci built daemonlessly three ways. The archive exists outside
// any image either way: in dist/ and the release record, with its SHA-256.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

interface BuildJson {
  cli: { archive: string; sha256: string; size: number };
  images: Record<string, { digest: string }>;
}

/** acme-oci with its api's `cliArchive`/`serveCli` as given; the api image's files and the build. */
async function buildWith(api: { cliArchive?: string; serveCli?: boolean }) {
  const repo = fixtureProject('acme-oci');
  repos.push(repo);
  const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
  delete config.artifacts.api.cliArchive;
  Object.assign(config.artifacts.api, api);
  repo.write('release.config.json', JSON.stringify(config));
  repo.write('.gitignore', 'dist/\n.release/\nnode_modules/\napi/dist/\nweb/dist/\n');
  repo.commit('acme');
  repo.tag('v2.0.0');
  const stamp = await runRelease(['stamp', '--json'], { cwd: repo.dir });
  expect(stamp.code, stamp.stderr).toBe(0);
  const run = await runRelease(['build', '--engine', 'oci', '--only', 'api,cli', '--json'], {
    cwd: repo.dir,
    timeoutMs: 180_000,
  });
  expect(run.code, run.stderr).toBe(0);
  const built = jsonOf<BuildJson>(run);
  const store = new LayoutStore(join(repo.dir, '.release/oci'), () => {});
  const manifest = JSON.parse(
    Buffer.from((await store.getManifest('acme-api', built.images['api']!.digest))!.bytes).toString('utf8'),
  ) as { layers: { digest: string }[] };
  const files = new Map<string, Buffer>();
  for (const layer of manifest.layers.slice(-2))
    for (const [path, bytes] of await layerFiles(await store.getBlob('acme-api', layer.digest)))
      files.set(path, bytes);
  const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
  return { repo, built, files, record };
}

const archives = (files: Map<string, Buffer>) => [...files.keys()].filter((p) => /\.tar\.gz$/.test(p));

describe('the CLI archive in the api image: only where asked', { timeout: 240_000 }, () => {
  it('not asked: the api image holds no archive; dist/ and the record have it', async () => {
    const { repo, built, files, record } = await buildWith({});
    expect(files.has('srv/api/server.mjs')).toBe(true);
    expect(archives(files)).toEqual([]);
    const archive = readFileSync(join(repo.dir, 'dist/acme-cli.tar.gz'));
    expect(archive.length).toBe(built.cli.size);
    expect(record.artifacts.cli).toMatchObject({ sha256: built.cli.sha256 });
  });

  it('serveCli: true puts it at the default path', async () => {
    const { built, files } = await buildWith({ serveCli: true });
    expect(archives(files)).toEqual(['app/service-cli.tar.gz']);
    expect(files.get('app/service-cli.tar.gz')!.length).toBe(built.cli.size);
  });

  it('a cliArchive path asks for it there', async () => {
    const { files } = await buildWith({ cliArchive: '/srv/acme-cli.tar.gz' });
    expect(archives(files)).toEqual(['srv/acme-cli.tar.gz']);
  });

  it('serveCli: false beside a cliArchive is refused by the config (exit 2)', async () => {
    const repo = fixtureProject('acme-oci');
    repos.push(repo);
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    config.artifacts.api.serveCli = false;
    repo.write('release.config.json', JSON.stringify(config));
    const run = await runRelease(['build', '--dry-run'], { cwd: repo.dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('serveCli is false');
  });
});
