import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { RELEASE_BIN } from '../helpers/run-release.ts';

// A module hook that names every package module Node loads, on stderr: from node_modules, or
// bundled into a chunk of lib/release (esbuild marks each bundled module with a path comment).
const HOOKS = `export async function load(url, context, next) {
  const m = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url);
  if (m) process.stderr.write('LOADED ' + m[1] + '\\n');
  const result = await next(url, context);
  if (url.includes('/lib/release/') && result.source) {
    for (const b of String(result.source).matchAll(/^\\/\\/ node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//gm))
      process.stderr.write('LOADED ' + b[1] + '\\n');
  }
  return result;
}`;
const REGISTER = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`;
// The CycloneDX library and its validator (ajv) load only when release build makes an SBOM.
const HEAVY = [
  'esbuild',
  'typescript',
  'vite',
  'dockerode',
  '@sigstore/sign',
  '@sigstore/verify',
  'tsx',
  '@cyclonedx/cyclonedx-library',
  'ajv',
];

/**
 * Start-up loads only what the command uses: the real bin (compiled lib/) under a module hook
 * that reports every package it loads. The `.ts` config case shows the hook sees esbuild when it
 * is loaded, so the other cases cannot pass by seeing nothing.
 */
describe('what release loads at start-up', () => {
  let repo: GitRepo;
  beforeAll(() => {
    repo = GitRepo.create('lazy-');
    repo.write('package.json', '{"name":"p","private":true}');
    repo.commit('initial');
    repo.annotatedTag('v1.0.0');
  });
  afterAll(() => repo?.remove());

  const packagesLoaded = (args: string[]) => {
    const result = spawnSync(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--', RELEASE_BIN, ...args],
      { cwd: repo.dir, encoding: 'utf8', env: { PATH: process.env['PATH'], HOME: repo.dir, CI: 'true' } },
    );
    expect(result.status, result.stderr).toBe(0);
    return new Set([...result.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!));
  };

  it('--version and --help load none of the heavy dependencies', () => {
    expect([...packagesLoaded(['--version'])]).toEqual([]);
    const help = packagesLoaded(['--help']);
    for (const name of HEAVY) expect(help).not.toContain(name);
  });

  it('stamp with a .json config loads no compiler, no engine, no signing', () => {
    writeFileSync(join(repo.dir, 'release.config.json'), '{"registry":"localhost:5000/acme"}');
    const loaded = packagesLoaded(['stamp', '--dry-run', '--json']);
    for (const name of HEAVY) expect(loaded).not.toContain(name);
  });

  it('stamp loads no argument parser, no config finder, no git library, and the validator only for a config not seen before', () => {
    // The defaults are validated at build time; a config once accepted is kept (validated-cache.ts)
    // under the nearest node_modules.
    const project = GitRepo.create('lazy-stamp-');
    try {
      project.write('.gitignore', 'node_modules/\n');
      project.write('release.config.json', '{"registry":"localhost:5000/acme"}');
      project.commit('initial');
      project.annotatedTag('v1.0.0');
      const stampLoads = (dir: string) => {
        const result = spawnSync(
          process.execPath,
          [
            '--import',
            `data:text/javascript,${encodeURIComponent(REGISTER)}`,
            '--',
            RELEASE_BIN,
            'stamp',
            '--dry-run',
          ],
          { cwd: dir, encoding: 'utf8', env: { PATH: process.env['PATH'], HOME: dir, CI: 'true' } },
        );
        expect(result.status, result.stderr).toBe(0);
        return new Set([...result.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!));
      };
      const never = ['commander', 'cosmiconfig', 'js-yaml', 'simple-git', 'debug'];
      // No node_modules: nowhere to keep an answer, so the validator runs (and the hook sees it).
      const uncached = stampLoads(project.dir);
      expect(uncached).toContain('zod');
      for (const name of never) expect(uncached).not.toContain(name);
      mkdirSync(join(project.dir, 'node_modules'));
      expect(stampLoads(project.dir)).toContain('zod');
      const cached = stampLoads(project.dir);
      for (const name of [...never, 'zod', ...HEAVY]) expect(cached).not.toContain(name);
      rmSync(join(project.dir, 'release.config.json'));
      const defaults = stampLoads(project.dir);
      for (const name of [...never, 'zod', ...HEAVY]) expect(defaults).not.toContain(name);
    } finally {
      project.remove();
    }
  });

  it('stamp with a .mjs config neither', () => {
    writeFileSync(
      join(repo.dir, 'release.config.mjs'),
      "export default { registry: 'localhost:5000/acme' };\n",
    );
    const loaded = packagesLoaded(['stamp', '--dry-run', '--json', '--config', 'release.config.mjs']);
    for (const name of HEAVY) expect(loaded).not.toContain(name);
  });

  it('a release.config.ts loads esbuild to compile it, and still not the TypeScript compiler', () => {
    writeFileSync(
      join(repo.dir, 'release.config.ts'),
      "const registry: string = 'localhost:5000/acme';\nexport default { registry };\n",
    );
    const loaded = packagesLoaded(['stamp', '--dry-run', '--json', '--config', 'release.config.ts']);
    expect(loaded).toContain('esbuild');
    expect(loaded).not.toContain('typescript');
  });
});
