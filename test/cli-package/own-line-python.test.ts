import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { createVersionHandler } from '../../src/service/api/version-handler.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { type Artifact, digestsOf, pushRelease, REPOS } from '../promote/project.ts';
import { signRelease } from '../signing/sign-release.ts';
import { baseEnv } from '../svc/support.ts';

// A CLI on its own version line that is not an npm package, taken through the real `release
// stamp`, `build`, `promote` and `verify`, with images in a real docker-registry:
// - a Python CLI whose pyproject.toml declares a PEP 440 version (1.24.0.post1) while the service
//   is CalVer (2026.6.0 dev, 2026.7.0-rc.1, 2026.7.0 from the rc), built by its own command into
//   an sdist named with that version; the API's min_cli_version 1.24.0 is compared as PEP 440, so
//   1.23.9.post3 (which semver cannot order) is refused at build and at promote;
// - a command-built CLI (a Rust-style Cargo.toml, semver 2.45.0) built into a tarball named with
//   its version, gated and verified the same way.
const PY_DECLARED = '1.24.0.post1';
const PY_OLD = '1.23.9.post3';
const PY_MIN = '1.24.0';
const PYTHON = '/usr/bin/python3';

let images: RunningRegistry;
let store: RegistryStore;
let scratch: string;
const repos: GitRepo[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is needed to build the Python CLI's sdist`);
  images = await startRegistry();
  store = new RegistryStore({ registry: `${images.host}/acme`, env: {} });
  scratch = mkdtempSync(join(tmpdir(), 'sr-own-python-'));
}, 60_000);
afterAll(async () => {
  for (const server of servers) await new Promise((done) => server.close(done));
  for (const repo of repos) repo.remove();
  await images?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/**
 * The CLI's own build, as `python -m build --sdist` lays an sdist out: `<name>-<version>/PKG-INFO`,
 * the package with its `__version__`, named `dist/acme_cli-<version>.tar.gz`. It reads the version
 * from pyproject.toml itself (tomllib), as a real backend does; nothing of ours tells it.
 */
const BUILD_SDIST = `import io, os, sys, tarfile, tomllib
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "pyproject.toml"), "rb") as f:
    version = tomllib.load(f)["project"]["version"]
root = f"acme_cli-{version}"
files = {
    "PKG-INFO": f"Metadata-Version: 2.1\\nName: acme-cli\\nVersion: {version}\\n",
    "pyproject.toml": open(os.path.join(here, "pyproject.toml")).read(),
    "acme_cli/__init__.py": f'__version__ = "{version}"\\n',
    "acme_cli/__main__.py": "import sys\\nfrom acme_cli import __version__\\ndef main():\\n    if sys.argv[1:] == ['--version']:\\n        print(f'acme, version {__version__}')\\nmain()\\n",
}
os.makedirs(os.path.join(here, "dist"), exist_ok=True)
with tarfile.open(os.path.join(here, "dist", f"{root}.tar.gz"), "w:gz") as tar:
    for name, text in files.items():
        data = text.encode()
        info = tarfile.TarInfo(f"{root}/{name}")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
`;

interface Made {
  repo: GitRepo;
  digests: Record<Artifact, string>;
}

async function pythonProject(
  tag: string,
  options: {
    declared?: string;
    min?: string;
    commitsAfter?: number;
    own?: Record<string, unknown>;
    archive?: string;
  } = {},
): Promise<Made> {
  const digests = await pushRelease(store, []);
  const repo = GitRepo.create('own-python-');
  repos.push(repo);
  repo.write(
    'release.config.json',
    JSON.stringify({
      registry: `${images.host}/acme`,
      api: { minCliVersion: options.min ?? PY_MIN },
      artifacts: {
        cli: {
          package: 'acme-cli',
          bin: 'acme',
          version: { own: options.own ?? { pyproject: 'cli/pyproject.toml' } },
          build: {
            command: [PYTHON, 'cli/build_sdist.py'],
            archive: options.archive ?? 'cli/dist/acme_cli-{version}.tar.gz',
          },
        },
      },
    }),
  );
  repo.write('.gitignore', 'dist/\n.release/\nkeys/\n');
  mkdirSync(join(repo.dir, 'cli'));
  repo.write(
    'cli/pyproject.toml',
    `[project]\nname = "acme-cli"\nversion = "${options.declared ?? PY_DECLARED}"\n\n[project.scripts]\nacme = "acme_cli.__main__:main"\n\n[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n`,
  );
  repo.write('cli/build_sdist.py', BUILD_SDIST);
  repo.commit('initial');
  repo.annotatedTag(tag);
  for (let i = 0; i < (options.commitsAfter ?? 0); i++) {
    repo.write(`change-${i}.txt`, String(i));
    repo.commit(`change ${i}`);
  }
  return { repo, digests };
}

async function release(repo: GitRepo, args: string[]): Promise<RunResult> {
  return runRelease([...args, '--json'], { cwd: repo.dir, timeoutMs: 120_000 });
}

/** What `release build` of the images would add: their digests, beside the CLI the real build recorded. */
function recordImages(made: Made): void {
  const path = join(made.repo.dir, 'dist', 'release.json');
  const record = JSON.parse(readFileSync(path, 'utf8'));
  for (const [artifact, digest] of Object.entries(made.digests)) record.artifacts[artifact].digest = digest;
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}

/** An API embedding the library's version handler, serving `version` and `min_cli_version`. */
async function api(version: string, minCliVersion: string): Promise<string> {
  const handler = createVersionHandler({ version, minCliVersion });
  const server = createServer((req, res) => handler(req, res, () => res.writeHead(404).end()));
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

type ErrorJson = { error: { code: string; message: string; hint: string; exitCode: number } };
type VerifyJson = {
  inStep: boolean;
  artifacts: { name: string; version?: string; status: string; why?: string; detail?: string }[];
  findings: { code: string }[];
};

describe('a Python CLI on its own version line (pyproject, PEP 440)', { timeout: 300_000 }, () => {
  let rc: Made;
  let installed: string;

  it('stamp leaves its version; dev and rc builds name the sdist with it; a release from the rc keeps it', async () => {
    const dev = await pythonProject('2026.6.0', { commitsAfter: 2 });
    const pyproject = readFileSync(join(dev.repo.dir, 'cli/pyproject.toml'), 'utf8');
    const stamped = await release(dev.repo, ['stamp']);
    expect(stamped.code, stamped.stderr).toBe(0);
    expect(existsSync(join(dev.repo.dir, 'dist/cli-version.json'))).toBe(false);
    const built = await release(dev.repo, ['build', '--only', 'cli']);
    expect(built.code, built.stderr).toBe(0);
    expect(readFileSync(join(dev.repo.dir, 'cli/pyproject.toml'), 'utf8')).toBe(pyproject);
    expect(readdirSync(join(dev.repo.dir, 'cli/dist'))).toEqual([`acme_cli-${PY_DECLARED}.tar.gz`]);
    const devRecord = JSON.parse(readFileSync(join(dev.repo.dir, 'dist/release.json'), 'utf8'));
    expect(devRecord.artifacts.cli).toMatchObject({
      version: PY_DECLARED,
      line: 'own',
      archive: `cli/dist/acme_cli-${PY_DECLARED}.tar.gz`,
    });
    recordImages(dev);
    const devRun = await release(dev.repo, ['promote', '--channel', 'dev']);
    expect(devRun.code, devRun.stderr).toBe(0);

    rc = await pythonProject('2026.7.0-rc.1');
    for (const args of [['stamp'], ['build', '--only', 'cli']]) {
      const ran = await release(rc.repo, args);
      expect(ran.code, ran.stderr).toBe(0);
    }
    recordImages(rc);
    const rcRun = await release(rc.repo, ['promote', '--channel', 'rc', '--no-sign']);
    expect(rcRun.code, rcRun.stderr).toBe(0);
    expect(jsonOf<{ tag: string }>(rcRun).tag).toBe('2026.7.0-rc.1');

    const final = await pythonProject('2026.7.0');
    const stampedFinal = await release(final.repo, ['stamp']);
    expect(stampedFinal.code, stampedFinal.stderr).toBe(0);
    await signRelease(final.repo.dir, store, rc.digests, REPOS);
    const out = await release(final.repo, ['promote', '--channel', 'release', '--from', '2026.7.0-rc.1']);
    expect(out.code, out.stderr).toBe(0);
    expect(jsonOf<{ tag: string }>(out).tag).toBe('2026.7.0');
    expect(await digestsOf(store, '2026.7.0')).toEqual(rc.digests);
  });

  it(`the gate refuses ${PY_OLD} (below ${PY_MIN} as PEP 440) at build and promote, with nothing written`, async () => {
    const old = await pythonProject('2026.8.0-rc.1', { declared: PY_OLD });
    expect((await release(old.repo, ['stamp'])).code).toBe(0);
    const built = await release(old.repo, ['build', '--only', 'cli']);
    expect(built.code, built.stdout).toBe(1);
    const { error } = jsonOf<ErrorJson>(built);
    expect(error.code).toBe('CLI_BELOW_OWN_MINIMUM');
    expect(error.message).toContain(`its CLI ${PY_OLD} is below ${PY_MIN}`);
    expect(error.message).toContain('compared as PEP 440');
    expect(error.hint).toMatch(/raise the CLI's own version to 1\.24\.0/);
    expect(existsSync(join(old.repo.dir, 'cli/dist'))).toBe(false); // its build never ran

    recordImages(old);
    const promoted = await release(old.repo, ['promote', '--channel', 'rc', '--no-sign']);
    expect(promoted.code, promoted.stdout).toBe(1);
    expect(jsonOf<ErrorJson>(promoted).error.code).toBe('CLI_BELOW_OWN_MINIMUM');
    expect(Object.values(await digestsOf(store, '2026.8.0-rc.1')).every((d) => d === null)).toBe(true);
  });

  it('an sdist whose PKG-INFO says another version than the place the config names is refused (exit 2)', async () => {
    // The config points at a stale VERSION file; the build reads the pyproject, as backends do.
    const stale = await pythonProject('2026.8.0-rc.2', {
      own: { file: 'cli/VERSION', scheme: 'pep440' },
      archive: `cli/dist/acme_cli-${PY_DECLARED}.tar.gz`,
    });
    stale.repo.write('cli/VERSION', '1.24.0\n');
    stale.repo.commit('a stale VERSION file');
    expect((await release(stale.repo, ['stamp'])).code).toBe(0);
    const built = await release(stale.repo, ['build', '--only', 'cli']);
    expect(built.code, built.stdout).toBe(2);
    const { error } = jsonOf<ErrorJson>(built);
    expect(error.code).toBe('CLI_VERSION_MISMATCH');
    expect(error.message).toContain(`says version ${PY_DECLARED} (acme_cli-${PY_DECLARED}/PKG-INFO)`);
    expect(error.message).toContain('cli/VERSION declares 1.24.0');
  });

  it("verify's CLI row shows the CLI's own version and its verdict against the API's minimum", async () => {
    // Installed from the rc's sdist, as pip would put its console script on PATH.
    const site = join(scratch, 'site');
    mkdirSync(site, { recursive: true });
    execFileSync('tar', ['xzf', join(rc.repo.dir, `cli/dist/acme_cli-${PY_DECLARED}.tar.gz`), '-C', site]);
    installed = join(scratch, 'bin');
    mkdirSync(installed, { recursive: true });
    writeFileSync(
      join(installed, 'acme'),
      `#!/bin/sh\nPYTHONPATH='${join(site, `acme_cli-${PY_DECLARED}`)}' exec ${PYTHON} -m acme_cli "$@"\n`,
    );
    chmodSync(join(installed, 'acme'), 0o755);
    const verify = async (url: string) =>
      runRelease(['verify', '--url', url, '--json'], {
        cwd: rc.repo.dir,
        env: { PATH: baseEnv({ binDirs: [installed] }).PATH },
      });

    const ok = await verify(await api('2026.7.0-rc.1', PY_MIN));
    const report = jsonOf<VerifyJson>(ok);
    expect(report.artifacts.find((a) => a.name === 'cli')).toMatchObject({
      version: PY_DECLARED,
      status: 'ok',
      why: `own version line, satisfies min_cli_version ${PY_MIN}`,
    });
    expect(report.inStep, ok.stdout).toBe(true);

    const below = await verify(await api('2026.7.0-rc.1', '1.25.0'));
    expect(below.code).toBe(1);
    const drift = jsonOf<VerifyJson>(below);
    expect(drift.artifacts.find((a) => a.name === 'cli')).toMatchObject({
      status: 'drift',
      why: 'below min_cli_version',
      detail: 'own version line, below min_cli_version 1.25.0',
    });
    expect(drift.findings.map((f) => f.code)).toContain('CLI_BELOW_MINIMUM');
  });
});

/** A Rust-style CLI's own build: reads its version from Cargo.toml and tars its binary under that name. */
const BUILD_TARBALL = `set -eu
v=$(sed -n 's/^version = "\\(.*\\)"$/\\1/p' cli/Cargo.toml)
mkdir -p cli/out cli/dist
printf '#!/bin/sh\\necho "acme %s"\\n' "$v" > cli/out/acme
chmod 755 cli/out/acme
tar czf "cli/dist/acme-$v-linux-amd64.tar.gz" -C cli/out acme
`;

async function commandProject(tag: string, options: { declared?: string; min?: string } = {}): Promise<Made> {
  // Its own repositories in the registry: the Python project's rc tags are there already.
  const tool = new RegistryStore({ registry: `${images.host}/tool`, env: {} });
  const digests = await pushRelease(tool, []);
  const repo = GitRepo.create('own-command-');
  repos.push(repo);
  repo.write(
    'release.config.json',
    JSON.stringify({
      registry: `${images.host}/tool`,
      api: { minCliVersion: options.min ?? '2.40.0' },
      artifacts: {
        cli: {
          package: 'acme',
          bin: 'acme',
          version: { own: { file: 'cli/Cargo.toml' } },
          build: { command: ['sh', 'cli/build.sh'], archive: 'cli/dist/acme-{version}-linux-amd64.tar.gz' },
        },
      },
    }),
  );
  repo.write('.gitignore', 'dist/\n.release/\ncli/out/\n');
  mkdirSync(join(repo.dir, 'cli'));
  repo.write(
    'cli/Cargo.toml',
    `[package]\nname = "acme"\nversion = "${options.declared ?? '2.45.0'}"\nedition = "2021"\n`,
  );
  repo.write('cli/build.sh', BUILD_TARBALL);
  repo.commit('initial');
  repo.annotatedTag(tag);
  expect((await release(repo, ['stamp'])).code).toBe(0);
  return { repo, digests };
}

describe('a command-built CLI on its own version line (Cargo.toml, semver)', { timeout: 300_000 }, () => {
  it('builds its tarball named 2.45.0, promotes the rc, and verify shows 2.45.0 against the minimum', async () => {
    const rc = await commandProject('2026.7.0-rc.1');
    const dry = await release(rc.repo, ['build', '--only', 'cli', '--dry-run']);
    expect(dry.code, dry.stdout).toBe(0);
    expect(jsonOf<{ cli: { version: string } }>(dry).cli.version).toBe('2.45.0');
    expect(existsSync(join(rc.repo.dir, 'cli/dist'))).toBe(false);
    const built = await release(rc.repo, ['build', '--only', 'cli']);
    expect(built.code, built.stdout).toBe(0);
    expect(readdirSync(join(rc.repo.dir, 'cli/dist'))).toEqual(['acme-2.45.0-linux-amd64.tar.gz']);
    const record = JSON.parse(readFileSync(join(rc.repo.dir, 'dist/release.json'), 'utf8'));
    expect(record.artifacts.cli).toMatchObject({
      version: '2.45.0',
      archive: 'cli/dist/acme-2.45.0-linux-amd64.tar.gz',
    });
    recordImages(rc);
    const promoted = await release(rc.repo, ['promote', '--channel', 'rc', '--no-sign']);
    expect(promoted.code, promoted.stdout).toBe(0);

    const bin = join(scratch, 'command-bin');
    mkdirSync(bin, { recursive: true });
    execFileSync('tar', ['xzf', join(rc.repo.dir, 'cli/dist/acme-2.45.0-linux-amd64.tar.gz'), '-C', bin]);
    const verify = await runRelease(['verify', '--url', await api('2026.7.0-rc.1', '2.40.0'), '--json'], {
      cwd: rc.repo.dir,
      env: { PATH: baseEnv({ binDirs: [bin] }).PATH },
    });
    const report = jsonOf<VerifyJson>(verify);
    expect(report.artifacts.find((a) => a.name === 'cli')).toMatchObject({
      version: '2.45.0',
      status: 'ok',
      why: 'own version line, satisfies min_cli_version 2.40.0',
    });
    expect(report.inStep, verify.stdout).toBe(true);
  });

  it.each([
    [
      'below the minimum',
      { min: '2.46.0' },
      1,
      'CLI_BELOW_OWN_MINIMUM',
      /its CLI 2\.45\.0 is below 2\.46\.0/,
    ],
    [
      'not a semver version',
      { declared: 'latest' },
      2,
      'CLI_VERSION_INVALID',
      /cli\/Cargo\.toml \[package\]\.version says "latest"/,
    ],
  ] as const)(
    'a CLI %s is refused before its build runs, with its exit code',
    async (_, options, exit, code, message) => {
      const made = await commandProject('2026.8.0-rc.1', options);
      // The dry run reads it as the build would, and never says ready.
      const dry = await release(made.repo, ['build', '--only', 'cli', '--dry-run']);
      expect(dry.code, dry.stdout).toBe(2);
      const plan = jsonOf<{ usable: string[]; engines: { problems: string[] }[] }>(dry);
      expect(plan.usable).toEqual([]);
      expect(plan.engines[0]!.problems.join('\n')).toMatch(message);
      const built = await release(made.repo, ['build', '--only', 'cli']);
      expect(built.code, built.stdout).toBe(exit);
      const { error } = jsonOf<ErrorJson>(built);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
      expect(existsSync(join(made.repo.dir, 'cli/dist'))).toBe(false);
    },
  );
});
