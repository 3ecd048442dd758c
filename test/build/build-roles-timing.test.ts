import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildTiming } from '../../src/build/build-timing.ts';
import { expectBuildTiming } from '../helpers/build-timing.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// One image tree run in several roles (netbox-docker's shape: the same image as the server, the
// worker and a housekeeping job, each its own artifact here), with no CLI and no web: the build's
// breakdown names each artifact (the command the three share timed once, under the first), and the images built after the first mount the base's layers
// from it rather than copying the base's largest blob once more per image.

const ROLES = ['api', 'worker', 'housekeeping'] as const;
// Each artifact stages the tree itself: files another artifact's command writes do not exist
// when the artifacts are checked, before any command runs.
const STAGE = [
  'sh',
  '-c',
  'mkdir -p dist/opt && cp -r app dist/opt/ && printf "%s\\n" "$SERVICE_VERSION" > dist/opt/VERSION',
];

describe('release build: one tree in several roles', () => {
  let repo: GitRepo;
  let timing: BuildTiming;
  let images: Record<string, { digest: string }>;

  beforeAll(async () => {
    repo = GitRepo.create('build-roles-');
    repo.write('.gitignore', 'dist/\n.release/\n');
    mkdirSync(join(repo.dir, 'app'));
    repo.write('app/launch.mjs', 'console.log(process.argv.slice(2).join(" "));\n');
    const artifact = (image: string, cmd: string[]) => ({
      image,
      build: { command: STAGE },
      files: [{ from: 'dist/opt', to: '/opt/netbox' }],
      entrypoint: ['/usr/local/bin/node', '/opt/netbox/app/launch.mjs'],
      cmd,
      versionFiles: [{ path: '/opt/netbox/VERSION', format: 'text' }],
    });
    repo.write(
      'release.config.json',
      JSON.stringify({
        registry: 'oci-layout:.release/oci',
        artifacts: {
          api: artifact('netbox', ['server']),
          worker: artifact('netbox-worker', ['rqworker']),
          housekeeping: artifact('netbox-housekeeping', ['housekeeping']),
          web: false,
          cli: false,
        },
      }),
    );
    repo.commit('netbox-like');
    repo.tag('v4.1.0-rc.1');
    expect((await runRelease(['stamp', '--json'], { cwd: repo.dir })).code).toBe(0);
    const built = await runRelease(['build', '--engine', 'oci', '--json'], {
      cwd: repo.dir,
      timeoutMs: 180_000,
    });
    expect(built.code, built.stderr).toBe(0);
    ({ timing, images } = jsonOf<{ timing: BuildTiming; images: Record<string, { digest: string }> }>(built));
  }, 240_000);

  afterAll(() => repo?.remove());

  it('times each role as an artifact of its own, and the base it made', () => {
    expectBuildTiming(timing, {
      images: [...ROLES],
      // The three name one command: it runs once, timed under the first (build-run-commands-step.ts).
      withoutCommand: ['worker', 'housekeeping'],
      signed: false,
      base: 'oci-layout:.release/base/node:20',
    });
    expect(timing.artifacts.map((a) => a.name)).toEqual([...ROLES, 'oci-layout:.release/base/node:20']);
    // No CLI, no web: nothing is timed for an artifact that was not built.
    expect(timing.artifacts.some((a) => a.name === 'cli' || a.name === 'web')).toBe(false);
  });

  it('writes the base layer once: the later images hard-link it from the first', () => {
    const blob = (repository: string, digest: string) =>
      join(repo.dir, '.release/oci', repository, 'blobs/sha256', digest.slice('sha256:'.length));
    const manifest = (repository: string, digest: string) =>
      JSON.parse(readFileSync(blob(repository, digest), 'utf8')) as { layers: { digest: string }[] };
    const baseLayer = manifest('netbox', images['api']!.digest).layers[0]!.digest;
    const inodes = ['netbox', 'netbox-worker', 'netbox-housekeeping'].map((repository, i) => {
      const image = images[ROLES[i]!]!.digest;
      // Every image starts from the same base layer...
      expect(manifest(repository, image).layers[0]!.digest).toBe(baseLayer);
      return statSync(blob(repository, baseLayer)).ino;
    });
    // ...and it is one file on disk, not three copies.
    expect(new Set(inodes).size).toBe(1);
  });
});
