import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const depcruise = join(root, 'node_modules/.bin/depcruise');

/** A throwaway project with the repository's own dependency rules and the given source files. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layering-'));
  copyFileSync(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  dirs.push(dir);
  return dir;
}
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function cruise(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(depcruise, ['src', '--config', '.dependency-cruiser.cjs'], { cwd });
    return { code: 0, output: stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: `${e.stdout}${e.stderr}` };
  }
}

describe('the layering rules (npm run lint)', () => {
  it('pass on this repository', async () => {
    const { code, output } = await cruise(root);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });

  it('fail when the version core imports an IO module or the toolkit', async () => {
    const dir = project({
      'src/version/parse.ts': "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
      'src/channels/plan.ts': "import { y } from '../registry/store.ts';\nexport const z = y;\n",
      'src/registry/store.ts': 'export const y = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(
      /core-is-pure: src\/version\/parse\.ts → node:fs|core-is-pure: src\/version\/parse\.ts → fs/,
    );
    expect(output).toContain('core-is-pure: src/channels/plan.ts → src/registry/store.ts');
  });

  it('fail when what ships imports toolkit machinery', async () => {
    const dir = project({
      'src/service/api/main.ts': "import { run } from '../../commands/run.ts';\nexport const go = run;\n",
      'src/commands/run.ts': 'export const run = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('service-ships-alone: src/service/api/main.ts → src/commands/run.ts');
  });

  it('fail when a toolkit module imports the reference service, and allow the package facade', async () => {
    const dir = project({
      'src/restamp/restamp.ts':
        "import { escape } from '../service/web/escape.ts';\nexport const restamp = escape;\n",
      'src/service/web/escape.ts': 'export const escape = 1;\n',
      'src/index.ts': "export { escape } from './service/web/escape.ts';\n",
      'src/exports/web.ts': "export { escape } from '../service/web/escape.ts';\n",
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('toolkit-knows-no-service: src/restamp/restamp.ts → src/service/web/escape.ts');
    expect(output).not.toContain('toolkit-knows-no-service: src/index.ts');
    expect(output).not.toContain('toolkit-knows-no-service: src/exports/web.ts');
  });

  it('fail when the gitops planner reads files or reaches into the toolkit', async () => {
    const dir = project({
      'src/gitops/plan.ts':
        "import { readFileSync } from 'node:fs';\nimport { store } from '../registry/store.ts';\nexport const p = [readFileSync, store];\n",
      'src/registry/store.ts': 'export const store = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/gitops-plan-is-pure: src\/gitops\/plan\.ts → (?:node:)?fs/);
    expect(output).toContain('gitops-plan-is-pure: src/gitops/plan.ts → src/registry/store.ts');
  });

  it('fail when one deployment engine imports another, at any layer, either way', async () => {
    const dir = project({
      'src/upgrade/swarm/plan.ts':
        "import { model } from '../compose/model.ts';\nexport const plan = model;\n",
      'src/upgrade/compose/model.ts': 'export const model = 1;\n',
      'src/commands/upgrade/compose/wait.ts':
        "import { converge } from '../swarm/converge.ts';\nexport const wait = converge;\n",
      'src/commands/upgrade/swarm/converge.ts':
        "import { tasks } from '../../../deployment-engines/swarm/tasks.ts';\nexport const converge = tasks;\n",
      'src/deployment-engines/swarm/tasks.ts':
        "import { cli } from '../compose/cli.ts';\nexport const tasks = cli;\n",
      'src/deployment-engines/compose/cli.ts': 'export const cli = 1;\n',
      // What the Docker engines share is no engine of its own.
      'src/commands/upgrade/compose/compose-engine.ts':
        "import { open } from '../docker/docker-engine.ts';\nexport const engine = open;\n",
      'src/commands/upgrade/docker/docker-engine.ts': 'export const open = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'deployment-engines-stay-apart: src/upgrade/swarm/plan.ts → src/upgrade/compose/model.ts',
    );
    expect(output).toContain(
      'deployment-engines-stay-apart: src/commands/upgrade/compose/wait.ts → src/commands/upgrade/swarm/converge.ts',
    );
    expect(output).toContain(
      'deployment-engines-stay-apart: src/deployment-engines/swarm/tasks.ts → src/deployment-engines/compose/cli.ts',
    );
    // An engine's own folders at the other layers are its own: Swarm's steps use Swarm's adapter.
    expect(output).not.toContain('src/commands/upgrade/swarm/converge.ts → src/deployment-engines/swarm');
    expect(output).not.toContain('→ src/commands/upgrade/docker/docker-engine.ts');
  });

  it('fail when the neutral upgrade imports an engine or the Docker client, and allow the registry', async () => {
    const dir = project({
      'src/upgrade/upgrade-outcome.ts':
        "import type { Plan } from './swarm/plan.ts';\nexport type Outcome = Plan;\n",
      'src/upgrade/swarm/plan.ts': 'export type Plan = { tag: string };\n',
      'src/commands/upgrade/run-upgrade.ts':
        "import { connect } from '../../docker-client/connect.ts';\nexport const run = connect;\n",
      'src/docker-client/connect.ts': 'export const connect = 1;\n',
      'src/commands/upgrade/engines.ts':
        "export const engines = [() => import('./compose/compose-engine.ts')];\n",
      'src/commands/upgrade/compose/compose-engine.ts': 'export const engine = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'neutral-upgrade-knows-no-engine: src/upgrade/upgrade-outcome.ts → src/upgrade/swarm/plan.ts',
    );
    expect(output).toContain(
      'neutral-upgrade-knows-no-engine: src/commands/upgrade/run-upgrade.ts → src/docker-client/connect.ts',
    );
    expect(output).not.toContain('src/commands/upgrade/engines.ts');
  });

  it('fail when verify imports upgrade or a command, even for a type, and allow the neutral folders', async () => {
    const dir = project({
      'src/verify/probes/worker.ts':
        "import type { NodeView } from '../../upgrade/swarm/swarm-types.ts';\nexport type Node = NodeView;\n",
      'src/upgrade/swarm/swarm-types.ts': 'export type NodeView = { id: string };\n',
      'src/verify/report.ts':
        "import { targets } from '../commands/verify/deployment-targets.ts';\nexport const report = targets;\n",
      'src/commands/verify/deployment-targets.ts': 'export const targets = 1;\n',
      'src/verify/checks.ts':
        "import { run } from '../commands/upgrade/run-upgrade.ts';\nexport const checks = run;\n",
      'src/commands/upgrade/run-upgrade.ts': 'export const run = 1;\n',
      // What both read lives in neutral folders: verify may take it.
      'src/verify/probes/api.ts':
        "import { read } from '../../version-endpoint/api-version.ts';\nimport type { NodeView } from '../../deployment-engines/swarm/swarm-views.ts';\nexport const api = read;\nexport type N = NodeView;\n",
      'src/version-endpoint/api-version.ts': 'export const read = 1;\n',
      'src/deployment-engines/swarm/swarm-views.ts': 'export type NodeView = { id: string };\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'verify-knows-no-upgrade-or-command: src/verify/probes/worker.ts → src/upgrade/swarm/swarm-types.ts',
    );
    expect(output).toContain(
      'verify-knows-no-upgrade-or-command: src/verify/report.ts → src/commands/verify/deployment-targets.ts',
    );
    expect(output).toContain(
      'verify-knows-no-upgrade-or-command: src/verify/checks.ts → src/commands/upgrade/run-upgrade.ts',
    );
    expect(output).not.toContain('src/verify/probes/api.ts →');
  });

  it('fail when upgrade imports verify, at either layer, and allow the neutral folders', async () => {
    const dir = project({
      'src/commands/upgrade/swarm/upgrade-report.ts':
        "import { table } from '../../../verify/report.ts';\nexport const report = table;\n",
      'src/verify/report.ts': 'export const table = 1;\n',
      'src/upgrade/swarm/convergence.ts':
        "import type { Reading } from '../../verify/types.ts';\nexport type Converged = Reading;\n",
      'src/verify/types.ts': 'export type Reading = { version: string };\n',
      'src/commands/upgrade/read-api-version.ts':
        "import { read } from '../../version-endpoint/api-version.ts';\nimport { table } from '../../console/table.ts';\nexport const api = [read, table];\n",
      'src/version-endpoint/api-version.ts': 'export const read = 1;\n',
      'src/console/table.ts': 'export const table = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'upgrade-knows-no-verify: src/commands/upgrade/swarm/upgrade-report.ts → src/verify/report.ts',
    );
    expect(output).toContain(
      'upgrade-knows-no-verify: src/upgrade/swarm/convergence.ts → src/verify/types.ts',
    );
    expect(output).not.toContain('src/commands/upgrade/read-api-version.ts →');
  });

  it('fail when one command folder imports another, and allow the shared root and library folders', async () => {
    const dir = project({
      'src/commands/watch/run-watch.ts':
        "import { targets } from '../verify/deployment-targets.ts';\nexport const watch = targets;\n",
      'src/commands/verify/deployment-targets.ts': 'export const targets = 1;\n',
      'src/commands/rehearse/rehearse-build-step.ts':
        "import type { BuildTiming } from '../build/build-timing.ts';\nexport type T = BuildTiming;\n",
      'src/commands/build/build-timing.ts': 'export type BuildTiming = { ms: number };\n',
      // An engine's folder is its command's own; the root files and library folders are everyone's.
      'src/commands/upgrade/swarm/swarm-engine.ts':
        "import { run } from '../run-upgrade.ts';\nimport { ctx } from '../../command-context.ts';\nimport { t } from '../../../deployment-targets/deployment-targets.ts';\nexport const engine = [run, ctx, t];\n",
      'src/commands/upgrade/run-upgrade.ts': 'export const run = 1;\n',
      'src/commands/command-context.ts': 'export const ctx = 1;\n',
      'src/deployment-targets/deployment-targets.ts': 'export const t = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'commands-stay-apart: src/commands/watch/run-watch.ts → src/commands/verify/deployment-targets.ts',
    );
    expect(output).toContain(
      'commands-stay-apart: src/commands/rehearse/rehearse-build-step.ts → src/commands/build/build-timing.ts',
    );
    expect(output).not.toContain('src/commands/upgrade/swarm/swarm-engine.ts →');
  });

  it('fail when dockerode is imported outside the Docker adapters, even for a type', async () => {
    const dockerode = "import Docker from 'dockerode';\nexport const client = Docker;\n";
    const dockerodeType = "import type Docker from 'dockerode';\nexport type Client = Docker;\n";
    const dir = project({
      'src/verify/probes/worker.ts': dockerode,
      'src/commands/upgrade/swarm/context.ts': dockerodeType,
      'src/deployment-engines/kubernetes/pods.ts': dockerode,
      'src/docker-client/connect.ts': dockerode,
      'src/build-engines/docker/engine.ts': dockerode,
      'src/deployment-engines/swarm/swarm.ts': dockerodeType,
      'src/deployment-engines/compose/containers.ts': dockerode,
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('dockerode-only-in-docker-adapters: src/verify/probes/worker.ts → dockerode');
    expect(output).toContain(
      'dockerode-only-in-docker-adapters: src/commands/upgrade/swarm/context.ts → dockerode',
    );
    expect(output).toContain(
      'dockerode-only-in-docker-adapters: src/deployment-engines/kubernetes/pods.ts → dockerode',
    );
    for (const adapter of [
      'docker-client',
      'build-engines/docker',
      'deployment-engines/swarm',
      'deployment-engines/compose',
    ])
      expect(output).not.toContain(`dockerode-only-in-docker-adapters: src/${adapter}/`);
  });

  it('fail on a cycle between folders, even when no module cycle exists', async () => {
    const dir = project({
      'src/a/one.ts': "import { two } from '../b/two.ts';\nexport const one = two;\n",
      'src/b/two.ts': 'export const two = 2;\n',
      'src/b/three.ts': "import { four } from '../a/four.ts';\nexport const three = four;\n",
      'src/a/four.ts': 'export const four = 4;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('no-folder-cycles');
    expect(output).not.toContain('no-module-cycles');
  });
});
