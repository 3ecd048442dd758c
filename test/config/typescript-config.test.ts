import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `release.config.ts` as users write it, in real projects run by the real `release` process:
 * a CommonJS package (no "type") and an ESM one, importing `defineConfig` from service-release or
 * not, with a tsconfig.json or none. The project's node_modules/service-release links to this
 * checkout (its compiled lib/), as `npm link` would; test/package does the same with `npm pack`.
 */
const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

type Variant = { module: 'commonjs' | 'module'; defineConfig: boolean; tsconfig: boolean };

const variants: Variant[] = (['commonjs', 'module'] as const).flatMap((module) =>
  [true, false].flatMap((defineConfig) =>
    [true, false].map((tsconfig) => ({ module, defineConfig, tsconfig })),
  ),
);

function project(variant: Variant, config: string): GitRepo {
  const repo = GitRepo.create('ts-config-');
  repos.push(repo);
  repo.write(
    'package.json',
    JSON.stringify({
      name: 'user-project',
      private: true,
      ...(variant.module === 'module' ? { type: 'module' } : {}),
    }),
  );
  if (variant.tsconfig) {
    // What each kind of project typically has: CommonJS output, or NodeNext for an ESM package.
    repo.write(
      'tsconfig.json',
      variant.module === 'commonjs'
        ? '{\n  // comments are allowed here\n  "compilerOptions": { "target": "es2019", "module": "commonjs", "strict": true, "esModuleInterop": true }\n}\n'
        : '{ "compilerOptions": { "target": "es2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "verbatimModuleSyntax": true } }\n',
    );
  }
  repo.write('.gitignore', 'node_modules/\ndist/\n');
  repo.write('release.config.ts', config);
  repo.commit('project');
  repo.annotatedTag('v1.0.0');
  mkdirSync(join(repo.dir, 'node_modules'));
  symlinkSync(ROOT, join(repo.dir, 'node_modules/service-release'));
  return repo;
}

function configSource(variant: Variant): string {
  // Type annotations, an interface and `satisfies`: what plain Node cannot parse ("Missing
  // initializer in const declaration" was how a CommonJS project failed before).
  const body = `interface Images { api: string; worker: string; web: string }
const images: Images = { api: 'acme-api', worker: 'acme-worker', web: 'acme-web' };
const registry: string = 'registry.example.test/acme';
`;
  return variant.defineConfig
    ? `import { defineConfig } from 'service-release';\n${body}
export default defineConfig({
  registry,
  artifacts: { api: { image: images.api }, worker: { image: images.worker }, web: { image: images.web } },
});\n`
    : `import type { ReleaseConfigInput } from 'service-release';\n${body}
export default {
  registry,
  artifacts: { api: { image: images.api }, worker: { image: images.worker }, web: { image: images.web } },
} satisfies ReleaseConfigInput;\n`;
}

describe('release.config.ts in the projects users have', () => {
  for (const variant of variants) {
    const name = `${variant.module === 'module' ? 'an ESM' : 'a CommonJS'} package, ${variant.defineConfig ? 'with' : 'without'} defineConfig, ${variant.tsconfig ? 'with a' : 'no'} tsconfig.json`;
    it(`loads in ${name}`, async () => {
      const repo = project(variant, configSource(variant));
      const before = readdirSync(repo.dir).sort();
      const result = await runRelease(['stamp', '--dry-run', '--json'], { cwd: repo.dir, subprocess: true });
      expect(result.code, result.stderr).toBe(0);
      const out = jsonOf<{ version: string; references: Record<string, string[]> }>(result);
      expect(out.version).toBe('v1.0.0');
      expect(out.references['api']).toContain('registry.example.test/acme/acme-api:v1.0.0');
      expect(out.references['web']).toContain('registry.example.test/acme/acme-web:v1.0.0');
      // The compiled copy it imported is gone again.
      expect(readdirSync(repo.dir).sort()).toEqual(before);
    });
  }

  it('follows a local TypeScript module the config imports, and tells the config its own path', async () => {
    const variant: Variant = { module: 'commonjs', defineConfig: true, tsconfig: false };
    const repo = project(
      variant,
      `import { basename } from 'node:path';
import { defineConfig } from 'service-release';
import { registry } from './release/registry.ts';
export default defineConfig({ registry, record: \`out/\${basename(__dirname)}.json\` });
`,
    );
    mkdirSync(join(repo.dir, 'release'));
    repo.write('release/registry.ts', "export const registry: string = 'localhost:5000/team';\n");
    const result = await runRelease(['stamp', '--json'], { cwd: repo.dir, subprocess: true });
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<{ references: Record<string, string[]>; files: string[] }>(result);
    expect(out.references['api']![0]).toMatch(/^localhost:5000\/team\//);
    expect(out.files).toContain(`out/${repo.dir.split('/').pop()}.json`);
  });

  it('compiles once: later runs import the cached module as it is, a changed local import compiles again', async () => {
    const variant: Variant = { module: 'module', defineConfig: true, tsconfig: false };
    const repo = project(
      variant,
      "import { defineConfig } from 'service-release';\nimport { registry } from './release/registry.ts';\nexport default defineConfig({ registry });\n",
    );
    mkdirSync(join(repo.dir, 'release'));
    repo.write('release/registry.ts', "export const registry: string = 'localhost:5000/one';\n");
    const stamp = async (env: Record<string, string> = {}) => {
      const result = await runRelease(['stamp', '--dry-run', '--json'], {
        cwd: repo.dir,
        subprocess: true,
        env,
      });
      expect(result.code, result.stderr).toBe(0);
      return jsonOf<{ references: Record<string, string[]> }>(result).references['api']![0];
    };
    expect(await stamp()).toMatch(/^localhost:5000\/one\//);
    const cache = join(repo.dir, 'node_modules/.cache/service-release/config');
    expect(readdirSync(cache).filter((f) => f.endsWith('.mjs'))).toHaveLength(1);
    // The next run imports the cached module as it is, without compiling: marked, it answers marked.
    const [module] = readdirSync(cache).filter((f) => f.endsWith('.mjs'));
    const compiled = readFileSync(join(cache, module!), 'utf8');
    writeFileSync(join(cache, module!), compiled.replace('localhost:5000/one', 'localhost:5000/cached'));
    expect(await stamp()).toMatch(/^localhost:5000\/cached\//);
    repo.write('release/registry.ts', "export const registry: string = 'localhost:5000/two';\n");
    expect(await stamp()).toMatch(/^localhost:5000\/two\//);
    // The module it replaced is gone: one per config.
    expect(readdirSync(cache).filter((f) => f.endsWith('.mjs'))).toHaveLength(1);
  });

  it('takes more than defineConfig from service-release when the config asks for it', async () => {
    // defineConfig alone is inlined (the package's main entry loads the whole library); any other
    // value from the package is imported for real.
    const repo = project(
      { module: 'commonjs', defineConfig: true, tsconfig: false },
      "import { defineConfig, MIN_CLI_VERSION } from 'service-release';\nexport default defineConfig({ registry: 'localhost:5000/team', api: { minCliVersion: MIN_CLI_VERSION } });\n",
    );
    const result = await runRelease(['stamp', '--dry-run', '--json'], { cwd: repo.dir, subprocess: true });
    expect(result.code, result.stderr).toBe(0);
    const cache = join(repo.dir, 'node_modules/.cache/service-release/config');
    const [module] = readdirSync(cache).filter((f) => f.endsWith('.mjs'));
    expect(readFileSync(join(cache, module!), 'utf8')).toMatch(/from ["']service-release["']/);
  });

  it('refuses a config with a syntax error: exit 2, the file and line named, nothing left behind', async () => {
    const repo = project(
      { module: 'commonjs', defineConfig: false, tsconfig: false },
      'export default { registry: "localhost:5000/x", };\nconst broken: = 1;\n',
    );
    const before = readdirSync(repo.dir).sort();
    const result = await runRelease(['stamp', '--dry-run'], { cwd: repo.dir, subprocess: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('could not read the configuration');
    expect(result.stderr).toContain('release.config.ts:2');
    expect(readdirSync(repo.dir).sort()).toEqual(before);
  });
});
