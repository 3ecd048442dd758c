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

  it('fail when a module outside the Docker adapters imports dockerode, even its types', async () => {
    const dir = project({
      'src/verify/probes/reader.ts': "import type Docker from 'dockerode';\nexport type D = Docker;\n",
      'src/docker-client/connect.ts':
        "import type Docker from 'dockerode';\nexport type DockerClient = Docker;\n",
      'src/deployment-engines/swarm/swarm.ts':
        "import type Docker from 'dockerode';\nexport type S = Docker;\n",
      'src/build-engines/docker/engine.ts': "import type Docker from 'dockerode';\nexport type B = Docker;\n",
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('dockerode-only-in-docker-adapters: src/verify/probes/reader.ts → dockerode');
    expect(output).not.toContain('src/docker-client/connect.ts →');
    expect(output).not.toContain('src/deployment-engines/swarm/swarm.ts →');
    expect(output).not.toContain('src/build-engines/docker/engine.ts →');
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
