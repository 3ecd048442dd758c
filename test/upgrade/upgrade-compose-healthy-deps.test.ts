import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import {
  type OneImageRig,
  runningComposeImages,
  startOneImageRig,
  stopOneImageRig,
  upComposeProject,
} from './one-image-rig.ts';

const _run = promisify(execFile);

// NetBox's docker-compose.yml (netbox-community/netbox-docker) runs one image as the API
// (`netbox`), the worker and a housekeeping scheduler, and the worker and scheduler wait for the
// API's health check: `depends_on: netbox: condition: service_healthy`. So a `docker-compose up -d`
// that recreates API and worker together must wait for the new API to be healthy before it
// starts the new worker. `release upgrade --compose` moves API and worker in one `up -d`: it must
// still end with all three on the release, in step, and roll back when the new API never gets
// healthy (here: the release's API crashes, so the worker is never started on the new image).

let rig: OneImageRig;
let root: string;
let file: string;
let apiUrl: string;

/** NetBox's shape: the API with a health check, worker and scheduler waiting for it to pass. */
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
    healthcheck:
      test:
        - CMD
        - /usr/local/bin/node
        - -e
        - "fetch('http://127.0.0.1:${apiPort}/api/version').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
      interval: 1s
      timeout: 3s
      retries: 20
  worker:
    <<: *app
    command: ["worker"]
    depends_on:
      api:
        condition: service_healthy
  scheduler:
    <<: *app
    command: ["scheduler"]
    depends_on:
      api:
        condition: service_healthy
`;
}

const target = () => [
  ...['--compose', file, '--url', apiUrl, '--docker-host', rig.engine.host],
  ...['--service', 'api=api', '--service', 'worker=worker', '--monitor', '2000', '--json'],
];

beforeAll(async () => {
  rig = await startOneImageRig('api');
  ({ root, file, apiUrl } = await upComposeProject(rig, 'sr-compose-healthy-', composeFile));
}, 600_000);

afterAll(() => stopOneImageRig(rig, root), 120_000);

describe('upgrade --compose when worker and scheduler wait for the API to be healthy (NetBox)', () => {
  it('moves all three to the release, the compose file untouched', async () => {
    const before = readFileSync(file, 'utf8');
    const upgrade = await runRelease(['upgrade', '--to', 'v1.1.0', ...target()], {
      cwd: rig.repo.dir,
      timeoutMs: 300_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(0);
    expect(jsonOf<{ status: string }>(upgrade).status).toBe('upgraded');
    const images = await runningComposeImages(rig);
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]?.every((ref) => ref.includes(rig.digests['v1.1.0']!)),
        service,
      ).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 400_000);

  it("rolls all three back when the release's API crashes, so it never gets healthy", async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.2.0', ...target(), '--timeout', '60000'], {
      cwd: rig.repo.dir,
      timeoutMs: 400_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(1);
    expect(jsonOf<{ status: string }>(upgrade).status).toBe('rolled-back');
    const images = await runningComposeImages(rig);
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]?.every((ref) => ref.includes(rig.digests['v1.1.0']!)),
        service,
      ).toBe(true);
  }, 500_000);
});
