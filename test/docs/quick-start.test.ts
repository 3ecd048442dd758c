import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { ROOT } from './doc-pages.ts';

// README.md's "Release your own service", run as written in scratch repositories against a real
// docker-registry, for both cases it names: a repository of Dockerfiles built on a Docker engine
// (a private dockerd, the build line as written), and one the daemonless engine builds (its
// `or:` line). The commands are read from the README's block, so the test and the page cannot
// part; `npx release` is the package's bin (`bin/release.js`, as a process). The install line is
// test/package's (an `npm pack` installed into a fresh project). Each case also runs the build
// without `--push` first: `release promote` must refuse it and name the command that pushes.

/** The `npx release ...` commands of the README's quick start, in order (`&&` split, comments off). */
function quickStart(): { main: string[][]; oci: string[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Release your own service'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const words = (command: string) => command.trim().split(/\s+/).slice(2); // after `npx release`
  const main = block
    .split('\n')
    .filter((line) => line.startsWith('npx release'))
    .flatMap((line) => line.replace(/#.*/, '').split('&&'))
    .map(words);
  const alternative = /^#\s*or:\s*(npx release [^#]+)/m.exec(block)?.[1];
  expect(alternative, 'the quick start names the daemonless build line').toBeDefined();
  return { main, oci: words(alternative!) };
}

const repos: GitRepo[] = [];
let registry: RunningRegistry;
let dockerd: Dockerd | undefined;

beforeAll(async () => {
  registry = await startRegistry();
}, 60_000);
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await dockerd?.stop();
  await registry?.stop();
});

/** A repository as most are: compose services that build Dockerfiles, images named in a registry. */
function project(namespace: string, dockerfile: (service: string) => string): GitRepo {
  const repo = GitRepo.create('quick-start-');
  repos.push(repo);
  const file = (path: string, text: string) => {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    writeFileSync(join(repo.dir, path), text);
  };
  file(
    'compose.yaml',
    `services:\n${['api', 'worker']
      .map(
        (s) =>
          `  ${s}:\n    build: ./${s}\n    image: ${registry.host}/${namespace}/acme-${s}:\${TAG:-latest}\n`,
      )
      .join('')}`,
  );
  for (const service of ['api', 'worker']) {
    file(`${service}/Dockerfile`, dockerfile(service));
    file(`${service}/main.mjs`, `console.log('acme ${service}');\n`);
  }
  repo.commit('service');
  return repo;
}

/** Run the commands in order as the bin; every one must succeed. */
async function runAll(repo: GitRepo, commands: string[][], env: Record<string, string>): Promise<void> {
  for (const args of commands) {
    const result = await runRelease(args, { cwd: repo.dir, env, subprocess: true, timeoutMs: 240_000 });
    expect(result.code, `release ${args.join(' ')}:\n${result.stdout}\n${result.stderr}`).toBe(0);
    // What init wrote is committed, as it tells the user to, before the stamp.
    if (args[0] === 'init') repo.commit('release config');
  }
}

/** `release promote` after a build without --push: exit 2, naming the build line that pushes. */
async function refusedUnpushed(
  repo: GitRepo,
  build: string[],
  env: Record<string, string>,
): Promise<RunResult> {
  const unpushed = build.filter((word) => word !== '--push');
  const built = await runRelease(unpushed, { cwd: repo.dir, env, subprocess: true, timeoutMs: 240_000 });
  expect(built.code, built.stderr).toBe(0);
  const promote = await runRelease(['promote', '--channel', 'dev'], { cwd: repo.dir, env, subprocess: true });
  expect(promote.code, promote.stderr).toBe(2);
  expect(promote.stderr).toMatch(/error: release build did not push the images to 127\.0\.0\.1:\d+\//);
  expect(promote.stderr).toContain(`hint: run \`release ${build.join(' ')}\``);
  const json = await runRelease(['promote', '--channel', 'dev', '--json'], {
    cwd: repo.dir,
    env,
    subprocess: true,
  });
  expect(jsonOf<{ error: { code: string } }>(json).error.code).toBe('RECORD_NOT_PUSHED');
  return promote;
}

/** Every image the quick start released is tagged `dev` in the registry. */
async function devTags(namespace: string): Promise<(string | undefined)[]> {
  const store = new RegistryStore({ registry: `${registry.host}/${namespace}`, env: {} });
  return Promise.all(
    ['acme-api', 'acme-worker'].map(async (image) => (await store.resolve(image, 'dev'))?.digest),
  );
}

describe("README's quick start, as written", () => {
  const { main, oci } = quickStart();
  const build = main.find((args) => args[0] === 'build' && !args.includes('--dry-run'))!;

  it('reads the commands of the quick start, and the guide gives the same ones', () => {
    expect(main.map((args) => args[0])).toEqual(['init', 'init', 'build', 'stamp', 'build', 'promote']);
    expect(build).toEqual(['build', '--engine', 'docker', '--push']);
    expect(oci).toEqual(['build', '--engine', 'oci', '--push']);
    const guide = readFileSync(join(ROOT, 'docs', 'guides', 'your-own-service.md'), 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(guide)![1]!;
    const steps = block
      .split('\n')
      .filter((line) => line.startsWith('npx release'))
      .map((line) => line.replace(/#.*/, '').trim().split(/\s+/).slice(2));
    expect(steps).toEqual(main);
  });

  it('no Docker: plain node stages, built by the daemonless engine into the registry', async () => {
    const repo = project(
      'oci',
      (s) =>
        `FROM node:20-slim\nCOPY main.mjs /srv/${s}/main.mjs\nENTRYPOINT ["node", "/srv/${s}/main.mjs"]\n`,
    );
    const env = { PATH: process.env['PATH'] ?? '' };
    const commands = main.map((args) => (args === build ? oci : args));
    const promoteAt = commands.findIndex((args) => args[0] === 'promote');
    await runAll(repo, commands.slice(0, promoteAt - 1), env);
    await refusedUnpushed(repo, oci, env);
    await runAll(repo, commands.slice(promoteAt - 1), env);
    const [api, worker] = await devTags('oci');
    expect(api).toMatch(/^sha256:/);
    expect(worker).toMatch(/^sha256:/);
  }, 600_000);

  it('a repository of Dockerfiles: built on a Docker engine and pushed to the registry', async () => {
    dockerd = await startDockerd();
    // Dockerfiles the daemonless engine cannot read (FROM scratch): the Docker engine's case.
    const repo = project('docker', () => 'FROM scratch\nARG APP_VERSION\nCOPY main.mjs /srv/main.mjs\n');
    const env = { PATH: process.env['PATH'] ?? '', DOCKER_HOST: dockerd.host };
    const promoteAt = main.findIndex((args) => args[0] === 'promote');
    await runAll(repo, main.slice(0, promoteAt - 1), env);
    await refusedUnpushed(repo, build, env);
    await runAll(repo, main.slice(promoteAt - 1), env);
    const [api, worker] = await devTags('docker');
    expect(api).toMatch(/^sha256:/);
    expect(worker).toMatch(/^sha256:/);
  }, 600_000);
});
