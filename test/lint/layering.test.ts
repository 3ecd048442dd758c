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

  it('fail when engine-neutral upgrade code names an engine, even by type, and allow the registry', async () => {
    const dir = project({
      'src/commands/upgrade/run-upgrade.ts':
        "import type { SwarmUpgradeContext } from './swarm/swarm-context.ts';\nimport { connect } from '../../docker-client/connect.ts';\nexport type C = SwarmUpgradeContext;\nexport const c = connect;\n",
      'src/commands/upgrade/swarm/swarm-context.ts': 'export interface SwarmUpgradeContext { n: number }\n',
      'src/docker-client/connect.ts': 'export const connect = 1;\n',
      'src/upgrade/upgrade-outcome.ts':
        "import type { Plan } from './compose/compose-plan.ts';\nexport type P = Plan;\n",
      'src/upgrade/compose/compose-plan.ts': 'export interface Plan { n: number }\n',
      'src/commands/upgrade/engines.ts':
        "export const engines = [() => import('./swarm/swarm-engine.ts')];\n",
      'src/commands/upgrade/swarm/swarm-engine.ts': 'export const swarmEngine = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'upgrade-core-knows-no-engine: src/commands/upgrade/run-upgrade.ts → src/commands/upgrade/swarm/swarm-context.ts',
    );
    expect(output).toContain(
      'upgrade-core-knows-no-engine: src/commands/upgrade/run-upgrade.ts → src/docker-client/connect.ts',
    );
    expect(output).toContain(
      'upgrade-core-knows-no-engine: src/upgrade/upgrade-outcome.ts → src/upgrade/compose/compose-plan.ts',
    );
    expect(output).not.toContain('src/commands/upgrade/engines.ts →');
  });

  it('fail when one upgrade engine imports another, and allow what the Docker engines share', async () => {
    const dir = project({
      'src/commands/upgrade/compose/compose-wait.ts':
        "import { converge } from '../swarm/converge.ts';\nimport { open } from '../docker/docker-engine.ts';\nexport const w = [converge, open];\n",
      'src/commands/upgrade/swarm/converge.ts': 'export const converge = 1;\n',
      'src/commands/upgrade/docker/docker-engine.ts': 'export const open = 1;\n',
      'src/upgrade/compose/compose-plan.ts':
        "import { rule } from '../swarm/convergence.ts';\nexport const plan = rule;\n",
      'src/upgrade/swarm/convergence.ts': 'export const rule = 1;\n',
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'upgrade-engines-stay-apart: src/commands/upgrade/compose/compose-wait.ts → src/commands/upgrade/swarm/converge.ts',
    );
    expect(output).toContain(
      'upgrade-engines-stay-apart: src/upgrade/compose/compose-plan.ts → src/upgrade/swarm/convergence.ts',
    );
    expect(output).not.toContain('→ src/commands/upgrade/docker/docker-engine.ts');
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
