import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectProject } from '../../src/init/detect.ts';
import { listProject } from '../../src/init/list-project.ts';

// init reads the repository only: a symbolic link to a folder or a file outside it is neither
// listed nor read, and a path that climbs out is not read either.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('release init and what is outside the repository', () => {
  it('lists no symbolic link and reads nothing through one or above the project', () => {
    const outside = mkdtempSync(join(tmpdir(), 'init-outside-'));
    const project = mkdtempSync(join(tmpdir(), 'init-project-'));
    dirs.push(outside, project);
    mkdirSync(join(outside, 'secret'));
    writeFileSync(join(outside, 'secret/Dockerfile'), 'FROM secret\n');
    writeFileSync(join(outside, 'compose.yaml'), 'services:\n  secret:\n    build: .\n');
    mkdirSync(join(project, 'api'));
    writeFileSync(join(project, 'api/Dockerfile'), 'FROM python:3.12\n');
    symlinkSync(join(outside, 'secret'), join(project, 'linked'), 'dir');
    symlinkSync(join(outside, 'compose.yaml'), join(project, 'compose.yaml'));
    const files = listProject(project);
    expect(files.paths).toEqual(['api/Dockerfile']);
    expect(files.read('compose.yaml')).toBeUndefined();
    expect(files.read('linked/Dockerfile')).toBeUndefined();
    expect(files.read(`../${outside.split('/').pop()}/compose.yaml`)).toBeUndefined();
    const detection = detectProject(files, ['compose.yaml']);
    expect(detection.dockerfiles.map((d) => d.path)).toEqual(['api/Dockerfile']);
    expect(detection.compose).toEqual([]);
  });
});
