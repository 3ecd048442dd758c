import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

interface Report {
  ok: boolean;
  engine: string;
  workspace: { path: string | null };
  steps: { title: string; status: string; detail?: string; reason?: string }[];
  error?: { code: string; message: string };
}

describe('release rehearse --engine docker (images, a registry, containers)', () => {
  let dockerd: Dockerd;
  beforeAll(async () => {
    dockerd = await startDockerd();
  });
  afterAll(async () => {
    await dockerd?.stop();
  });

  it('rehearses with a real engine and leaves no container, registry or workspace', {
    timeout: 900_000,
  }, async () => {
    const result = await runRelease(['rehearse', '--engine', 'docker', '--json'], {
      cwd: tmpdir(),
      env: { DOCKER_HOST: dockerd.host },
      timeoutMs: 880_000,
    });
    const report = jsonOf<Report>(result);
    expect(report.error).toBeUndefined();
    expect(result.code).toBe(0);
    expect(report).toMatchObject({ ok: true, engine: 'docker' });
    // Every step ran but the two of the CLI package, which need --publish.
    const publishing = ['Start a local npm registry', 'Install the released CLI package'];
    for (const step of report.steps)
      expect(step.status, step.title).toBe(
        publishing.some((t) => step.title.startsWith(t)) ? 'skipped' : 'done',
      );
    const detail = (title: string) => report.steps.find((s) => s.title.startsWith(title))?.detail ?? '';
    expect(detail('Start a local registry')).toMatch(/^docker-registry on 127\.0\.0\.1:\d+/);
    expect(detail('Make a git repository')).toMatch(
      /images go to 127\.0\.0\.1:\d+\/rehearsal; release key [0-9a-f]{16}$/,
    );
    expect(detail('Build every artifact')).toMatch(
      /^engine docker; api sha256:.*, signed \(dist\/service-cli\.tar\.gz\.sig\)$/,
    );
    expect(detail('Start the deployment')).toMatch(/^containers: api http:\/\/127\.0\.0\.1:\d+/);
    // The release re-stamped from the rc reports its own tag everywhere, with the rc's code.
    expect(detail('Verify the deployment')).toBe(
      'in step at v1.0.0: api v1.0.0, worker v1.0.0, web v1.0.0, cli v1.0.0; api image v1.0.0 = rc code, worker image v1.0.0 = rc code, web image v1.0.0 = rc code',
    );
    expect(detail('Show the gate')).toMatch(/^exit 3: /);
    // The Dockerfile's wildcard COPY put the archive's .sig in the version layer, the release
    // re-signed it, and the old svc (key baked in) verified it.
    expect(detail('Update the old CLI')).toMatch(/archive signature verified with key [0-9a-f]{16}/);

    const left = await dockerd.docker.listContainers({
      all: true,
      filters: { label: ['service-release.rehearsal=true'] },
    });
    expect(left).toEqual([]);
    expect(existsSync(report.workspace.path!)).toBe(false);
  });

  it('refuses with exit 3 and a hint when no engine answers', async () => {
    const result = await runRelease(['rehearse', '--engine', 'docker', '--json'], {
      cwd: tmpdir(),
      env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
    });
    expect(result.code).toBe(3);
    const report = jsonOf<Report>(result);
    expect(report.error?.code).toBe('DOCKER_UNREACHABLE');
    expect(report.steps.map((s) => s.status)).toEqual(['done', 'failed']);
    expect(existsSync(report.workspace.path!)).toBe(false);
  });
});
