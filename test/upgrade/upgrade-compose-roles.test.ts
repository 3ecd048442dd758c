import { parse as shellParse } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nodeVersion } from '../../src/init/node-version.ts';
import { packageManager } from '../../src/init/package-manager.ts';
import { registryLogin } from '../../src/init/registry-login.ts';
import { renderGithubWorkflow } from '../../src/init/render-github-workflow.ts';
import { tagScheme } from '../../src/init/tag-scheme.ts';
import { freePort } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import {
  addAdminWeb,
  type OneImageRig,
  releaseSigned,
  runningComposeImages,
  SIGNING_ENV,
  startOneImageRig,
  stopOneImageRig,
  upComposeProject,
} from './one-image-rig.ts';

// fixtures/one-image deployed with Compose as self-hosted projects deploy one application image:
// the same image three times, api by its default command, worker and scheduler by `command:`;
// beside them two web clients, each its own image (the app `web` and an admin dashboard `admin`).
// `release upgrade --compose` must find them (no --service; each web client by its image, given
// its URL) and move the three app services in one phase, then both web clients each to its own
// image; when the release's worker command crashes, put all back; `release verify --compose`
// reads one row per role and both web clients in step, and with `--registry` one registry
// reading per role against the digest the release tag names.

let rig: OneImageRig;
let root: string;
let file: string;
let apiUrl: string;
let webPort: number;
let adminPort: number;

const WEBS = ['web', 'admin'] as const;
const webUrlFlags = () => [
  ...['--web-url', `web=http://127.0.0.1:${webPort}`],
  ...['--web-url', `admin=http://127.0.0.1:${adminPort}`],
];

function composeFile(apiPort: number): string {
  return `version: "3.8"
x-app: &app
  network_mode: host
  stop_grace_period: 2s
  image: \${APP_IMAGE:-${rig.namespace}/acme-app:v1.0.0}
services:
  api:
    <<: *app
    environment:
      PORT: "${apiPort}"
      HOST: 127.0.0.1
  worker:
    <<: *app
    command: ["worker"]
  scheduler:
    <<: *app
    command: ["scheduler"]
  web:
    network_mode: host
    stop_grace_period: 2s
    image: ${rig.namespace}/acme-web:v1.0.0
    environment: { PORT: "${webPort}", HOST: 127.0.0.1 }
  admin:
    network_mode: host
    stop_grace_period: 2s
    image: ${rig.namespace}/acme-admin:v1.0.0
    environment: { PORT: "${adminPort}", HOST: 127.0.0.1 }
`;
}

// The services named, or (named = false) found as verify finds them: by image and command.
// `webs`: with both web clients' URLs (they move); the signed release has none to move.
const target = (named = true, webs = true) => [
  ...['--compose', file, '--url', apiUrl, '--docker-host', rig.engine.host],
  ...(named ? ['--service', 'api=api', '--service', 'worker=worker'] : []),
  ...(webs ? webUrlFlags() : []),
  ...['--monitor', '2000', '--json'],
];

beforeAll(async () => {
  rig = await startOneImageRig('worker', addAdminWeb, { build: ['api', 'web', 'admin'] });
  [webPort, adminPort] = [await freePort(), await freePort()];
  ({ root, file, apiUrl } = await upComposeProject(rig, 'sr-compose-roles-', composeFile));
}, 600_000);

afterAll(() => stopOneImageRig(rig, root), 120_000);

describe('upgrade --compose of one image in three roles', () => {
  it('moves api, worker and scheduler together, then both web clients, no --service needed; verify --compose reads one row per role', async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.1.0', ...target(false)], {
      cwd: rig.repo.dir,
      timeoutMs: 300_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(0);
    // Each role's service found by its image and command; the scheduler moves with its image.
    const plan = jsonOf<{ plan: { phases: { service: string; role: string; why: string }[][] } }>(
      upgrade,
    ).plan;
    expect(plan.phases.map((phase) => phase.map((m) => [m.service, m.role, m.why]))).toEqual([
      [
        ['api', 'api', 'found: runs acme-app'],
        ['worker', 'worker', 'found: runs acme-app with "worker"'],
        ['scheduler', 'worker', 'runs the worker image'],
      ],
      [
        ['web', 'web', 'found: runs acme-web'],
        ['admin', 'web', 'runs the admin image'],
      ],
    ]);
    const images = await runningComposeImages(rig);
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]!.every((ref) => ref.includes(rig.digests['v1.1.0']!)),
        service,
      ).toBe(true);
    // Each web client on its own image's release digest, never the other's.
    for (const web of WEBS)
      expect(
        images[web]!.every((ref) => ref.includes(rig.images[web]!['v1.1.0']!)),
        web,
      ).toBe(true);
    const verify = await runRelease(
      [
        ...['verify', '--url', apiUrl, '--compose', file, '--docker-host', rig.engine.host],
        ...webUrlFlags(),
        '--json',
      ],
      { cwd: rig.repo.dir },
    );
    const report = jsonOf<{ artifacts: { name: string; role?: string; version: string; status: string }[] }>(
      verify,
    );
    expect(verify.code, verify.stdout).toBe(0);
    expect(report.artifacts.find((a) => a.role === 'scheduler')).toMatchObject({
      version: 'v1.1.0',
      status: 'ok',
    });
    // Both web clients read at their URLs, in step.
    expect(
      report.artifacts.filter((a) => a.name === 'web').map((a) => [a.role ?? 'web', a.version, a.status]),
    ).toEqual([
      ['web', 'v1.1.0', 'ok'],
      ['admin', 'v1.1.0', 'ok'],
    ]);
    // The fixture declares no CLI: no CLI row.
    expect(report.artifacts.map((a) => a.name)).not.toContain('cli');
    // --registry: one reading per role, each against the digest its service's containers run.
    const withRegistry = await runRelease(
      [
        'verify',
        '--url',
        apiUrl,
        '--compose',
        file,
        '--docker-host',
        rig.engine.host,
        '--registry',
        '--json',
      ],
      { cwd: rig.repo.dir },
    );
    const registryReport = jsonOf<{
      findings: { code: string }[];
      registry: { artifact: string; role?: string; expected: string; running: { digest: string }[] }[];
    }>(withRegistry);
    expect(withRegistry.code, withRegistry.stdout).toBe(0);
    expect(
      registryReport.registry.map((r) => [
        r.artifact,
        r.role ?? null,
        r.expected,
        r.running.map((x) => x.digest),
      ]),
    ).toEqual([
      ['api', null, rig.digests['v1.1.0'], [rig.digests['v1.1.0']]],
      ['worker', null, rig.digests['v1.1.0'], [rig.digests['v1.1.0']]],
      ['worker', 'scheduler', rig.digests['v1.1.0'], [rig.digests['v1.1.0']]],
      // Each web client against its own image's release digest.
      ['web', null, rig.images['web']!['v1.1.0'], [rig.images['web']!['v1.1.0']]],
      ['admin', null, rig.images['admin']!['v1.1.0'], [rig.images['admin']!['v1.1.0']]],
    ]);
    expect(registryReport.findings.filter((f) => f.code.startsWith('REGISTRY_'))).toEqual([]);
  }, 400_000);

  it("rolls all three back when the release's worker command crashes; the web clients never move", async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.2.0', ...target()], {
      cwd: rig.repo.dir,
      timeoutMs: 400_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(1);
    const images = await runningComposeImages(rig);
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]!.every((ref) => ref.includes(rig.digests['v1.1.0']!)),
        service,
      ).toBe(true);
    for (const web of WEBS)
      expect(
        images[web]!.every((ref) => ref.includes(rig.images[web]!['v1.1.0']!)),
        web,
      ).toBe(true);
  }, 500_000);

  // The path: the service released as a team releases it (a signed rc, the release made
  // from it) on a real registry, upgraded with no --service, and verified as the CI pipeline init
  // writes verifies it: one image, three roles, judged once and each role named in its rows.
  it('a signed rc and its release, upgraded with no --service, verify --registry --require-signature in step', async () => {
    const digest = await releaseSigned(rig, 'v2.0.0-rc.1', 'v2.0.0');
    const upgrade = await runRelease(['upgrade', '--to', 'v2.0.0', ...target(false, false)], {
      cwd: rig.repo.dir,
      env: SIGNING_ENV,
      timeoutMs: 300_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(0);
    const images = await runningComposeImages(rig);
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]!.every((ref) => ref.includes(digest)),
        service,
      ).toBe(true);
    type Report = {
      inStep: boolean;
      artifacts: { name: string; role?: string; version: string; status: string }[];
      findings: { code: string; severity: string; message: string }[];
      registry: { artifact: string; role?: string; expected: string; running: { digest: string }[] }[];
      signatures: { artifact: string; repository: string; status: string }[];
      evidence: { repository: string; artifact?: string; roles?: string[] }[];
      summaries?: { about: string; roles?: string[]; result: string }[];
    };
    // With attestations required and --attest: one verification summary per image, its roles named.
    for (const more of [[], ['--require-attestations', '--attest']]) {
      const verify = await runRelease(
        [
          ...['verify', '--url', apiUrl, '--compose', file, '--docker-host', rig.engine.host],
          ...['--registry', '--require-signature', ...more, '--expect', 'v2.0.0', '--json'],
        ],
        { cwd: rig.repo.dir, env: SIGNING_ENV, timeoutMs: 240_000 },
      );
      expect(verify.code, `${more.join(' ')}\n${verify.stdout}\n${verify.stderr}`).toBe(0);
      const report = jsonOf<Report>(verify);
      expect(report.inStep).toBe(true);
      expect(report.findings.filter((f) => f.severity !== 'notice').map((f) => f.code)).toEqual([]);
      // A row per role (the api read at its URL and in its container), each on the release.
      const rows = report.artifacts.filter((a) => a.name !== 'web');
      expect(
        rows.every((a) => a.version === 'v2.0.0' && a.status === 'ok'),
        verify.stdout,
      ).toBe(true);
      expect([...new Set(rows.map((a) => `${a.name} ${a.role ?? ''}`.trim()))].sort()).toEqual([
        'api',
        'worker',
        'worker scheduler',
      ]);
      expect(report.registry.map((r) => [r.artifact, r.role ?? null, r.expected])).toEqual([
        ['api', null, digest],
        ['worker', null, digest],
        ['worker', 'scheduler', digest],
      ]);
      // The app image is signed once, whatever number of roles run it.
      const app = report.signatures.filter((s) => s.repository.split('/').at(-1) === 'acme-app');
      expect(
        app.map((s) => s.status),
        JSON.stringify(report.signatures),
      ).toEqual(['valid']);
      if (more.includes('--attest'))
        expect(report.summaries?.map((s) => [s.about, s.roles ?? null, s.result])).toEqual([
          ['api', ['api', 'worker', 'scheduler'], 'PASSED'],
          ['release-set', null, 'PASSED'],
        ]);
    }
    // The verify the CI pipeline `release init` writes, as written: the API's URL and the tag.
    const ci = ciVerifyArgs({ SERVICE_URL: apiUrl, TAG: 'v2.0.0' });
    expect(ci.slice(0, 3)).toEqual(['verify', '--url', apiUrl]);
    const inCi = await runRelease(ci, { cwd: rig.repo.dir, env: SIGNING_ENV, timeoutMs: 240_000 });
    expect(inCi.code, `${ci.join(' ')}\n${inCi.stdout}\n${inCi.stderr}`).toBe(0);
    expect(jsonOf<{ signatures: { status: string }[] }>(inCi).signatures.map((s) => s.status)).toEqual([
      'valid',
    ]);
  }, 900_000);
});

/** The verify line of the GitHub workflow init writes for this config, its variables filled in. */
function ciVerifyArgs(env: Record<string, string>): string[] {
  const host = rig.registry.host;
  const workflow = parse(
    renderGithubWorkflow({
      engine: 'oci',
      installDockerode: false,
      registryHost: host,
      login: registryLogin(host),
      web: false,
      pythonBuild: false,
      manager: packageManager((path) => (path === 'package-lock.json' ? '{}' : undefined)),
      node: nodeVersion(() => undefined),
      tags: tagScheme(['v1.0.0']),
    }),
  ) as { jobs: { verify: { steps: { run?: string }[] } } };
  const run = workflow.jobs.verify.steps.at(-1)!.run!;
  const line = run.split('\n').find((l) => / verify --url /.test(l))!;
  const words = shellParse(line, env).map(String);
  return words.slice(words.indexOf('verify'));
}
