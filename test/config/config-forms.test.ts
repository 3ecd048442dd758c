import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';

// Every form a config may take, found or named, read by the sources in process and by the release
// bundle (the bin): the bundle reads the documented forms itself and leaves the rest to
// our own YAML and CommonJS readers, loaded only then.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'config-forms-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const registryOf = (result: RunResult) =>
  jsonOf<{ references: Record<string, string[]> }>(result).references['api']?.[0]?.split('/service-api:')[0];

const FORMS: { name: string; files: Record<string, string>; args?: string[]; registry: string }[] = [
  {
    name: 'release.config.json',
    files: { 'release.config.json': '{"registry":"localhost:5000/json"}' },
    registry: 'localhost:5000/json',
  },
  {
    name: 'release.config.mjs',
    files: { 'release.config.mjs': "export default { registry: 'localhost:5000/mjs' };" },
    registry: 'localhost:5000/mjs',
  },
  {
    name: 'the release key of package.json',
    files: { 'package.json': '{"name":"p","release":{"registry":"localhost:5000/pkg"}}' },
    registry: 'localhost:5000/pkg',
  },
  {
    name: 'a package.json without one (the defaults)',
    files: { 'package.json': '{"name":"p"}' },
    registry: 'oci-layout:.release/oci',
  },
  {
    name: 'an empty release.config.json (the defaults)',
    files: { 'release.config.json': '' },
    registry: 'oci-layout:.release/oci',
  },
  {
    name: 'YAML named with --config',
    files: { 'release.yaml': 'registry: localhost:5000/yaml\n' },
    args: ['--config', 'release.yaml'],
    registry: 'localhost:5000/yaml',
  },
  {
    name: '.cjs named with --config',
    files: { 'release.config.cjs': "module.exports = { registry: 'localhost:5000/cjs' };" },
    args: ['--config', 'release.config.cjs'],
    registry: 'localhost:5000/cjs',
  },
  {
    name: 'the first of the search places when several are there',
    files: {
      'release.config.mjs': "export default { registry: 'localhost:5000/first' };",
      'release.config.json': '{"registry":"localhost:5000/second"}',
    },
    registry: 'localhost:5000/first',
  },
];

describe.each([
  ['in process', false],
  ['through the bin', true],
])('config forms, %s', (_, subprocess) => {
  it.each(FORMS)('$name', async ({ files, args, registry }) => {
    const dir = project(files);
    const result = await runRelease(['stamp', '--dry-run', '--json', ...(args ?? [])], {
      cwd: dir,
      subprocess,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(registryOf(result)).toBe(registry);
  });

  it('refuses broken JSON with the file named: exit 2', async () => {
    const dir = project({ 'release.config.json': '{"registry": ' });
    const result = await runRelease(['stamp', '--dry-run'], { cwd: dir, subprocess });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/could not read the configuration: JSON Error in .*release\.config\.json/);
  });

  it.each([
    ['broken YAML', 'registry: [localhost\n', /YAML Error in .*release\.yaml: .*\(line \d+\)/],
    [
      'a key given twice',
      'registry: a.example/x\nregistry: b.example/y\n',
      /the key "registry" is given twice \(line 2\)/,
    ],
  ])('refuses %s with the file named: exit 2', async (_, text, message) => {
    const dir = project({ 'release.yaml': text });
    const result = await runRelease(['stamp', '--dry-run', '--config', 'release.yaml'], {
      cwd: dir,
      subprocess,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
