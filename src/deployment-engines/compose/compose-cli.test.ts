import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectName } from './compose-cli.ts';

const root = mkdtempSync(join(tmpdir(), 'sr-compose-name-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function project(dir: string, dotEnv?: string): string {
  const path = join(root, dir);
  mkdirSync(path, { recursive: true });
  if (dotEnv !== undefined) writeFileSync(join(path, '.env'), dotEnv);
  return join(path, 'docker-compose.yml');
}

describe('projectName (as Compose chooses it)', () => {
  it("is the first file's directory, lower-cased, without what Compose drops", () => {
    expect(
      projectName({ flag: undefined, env: {}, modelName: undefined, firstFile: project('My.Shop_2-x') }),
    ).toBe('myshop_2-x');
  });

  it('takes --project-name, then COMPOSE_PROJECT_NAME, then the .env file, then the model name', () => {
    const file = project('withenv', '# settings\nCOMPOSE_PROJECT_NAME="from-dotenv"\n');
    expect(
      projectName({ flag: 'Flag', env: { COMPOSE_PROJECT_NAME: 'env' }, modelName: 'm', firstFile: file }),
    ).toBe('flag');
    expect(
      projectName({ flag: undefined, env: { COMPOSE_PROJECT_NAME: 'env' }, modelName: 'm', firstFile: file }),
    ).toBe('env');
    expect(projectName({ flag: undefined, env: {}, modelName: 'm', firstFile: file })).toBe('from-dotenv');
    expect(projectName({ flag: undefined, env: {}, modelName: 'model', firstFile: project('plain') })).toBe(
      'model',
    );
  });

  it('refuses a name that leaves nothing (exit 2)', () => {
    expect(() =>
      projectName({ flag: '...', env: {}, modelName: undefined, firstFile: project('x') }),
    ).toThrow(/no Compose project name/);
  });
});
