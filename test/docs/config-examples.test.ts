import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { ReleaseConfig } from '../../src/config/schema.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { pages, ROOT } from './doc-pages.ts';

// Every config example in README.md and docs/ goes through the real loader and the schema as a
// user's `release.config.ts` or `.json` would, so the docs cannot drift from the tool:
//
// - a whole config (`defineConfig({...})`, `export default {...}`, or a JSON object of config
//   keys) is written as the config file of a scratch git repository and loaded; when it declares
//   artifacts, that repository gets the files it names (a `FROM scratch` Dockerfile per context,
//   each `files[].from`) and `release build --dry-run` must accept it for at least one engine,
//   building only what it declares;
// - a fragment (`signing: {...},`) says so with `<!-- fragment -->` just above its block (an HTML
//   comment a reader does not see), and is loaded inside `defineConfig({ ... })`, the same way
//   (and built when it declares artifacts, as the roles example does);
// - a whole config that cannot build as written says why, `<!-- not built: the recipes are
//   elided -->`, and is loaded and validated only;
// - every other `ts` or `json` block must not look like a config (a `--json` document, the
//   library's JavaScript examples, which test/package runs).
// A `ts` block that is neither a whole config nor marked as a fragment fails the test.

interface Block {
  page: string;
  line: number;
  lang: string;
  body: string;
  fragment: boolean;
  /** Why a whole config is only loaded, not built (`<!-- not built: why -->`). */
  notBuilt?: string;
}

const CONFIG_KEYS = new Set([
  '$schema',
  'registry',
  'insecureRegistries',
  'record',
  'deployments',
  'signing',
  'verifier',
  'artifacts',
  'versionVariables',
  'skew',
  'deploy',
  'api',
]);

function blocks(): Block[] {
  const out: Block[] = [];
  for (const page of pages()) {
    const text = readFileSync(page, 'utf8');
    for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
      const before = text.slice(0, m.index).trimEnd();
      const notBuilt = /<!-- not built: ([^>]+?) -->$/.exec(before)?.[1];
      out.push({
        page: relative(ROOT, page),
        line: text.slice(0, m.index).split('\n').length,
        lang: m[1]!,
        body: m[2]!,
        fragment: before.endsWith('<!-- fragment -->'),
        ...(notBuilt ? { notBuilt } : {}),
      });
    }
  }
  return out;
}

/** A JSON block that is a config: an object of config keys only (a `--json` document has others). */
function jsonConfig(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const keys = Object.keys(parsed);
  return keys.length > 0 && keys.every((k) => CONFIG_KEYS.has(k))
    ? (parsed as Record<string, unknown>)
    : undefined;
}

const isWholeTs = (body: string) => /\bdefineConfig\(\{|^export default \{/m.test(body);

/** The config file a block is, as a user would save it. */
function configFile(block: Block): { name: string; text: string } {
  if (block.lang === 'json') return { name: 'release.config.json', text: block.body };
  if (block.fragment)
    return {
      name: 'release.config.ts',
      text: `import { defineConfig } from 'service-release';\n\nexport default defineConfig({\n${block.body}});\n`,
    };
  return { name: 'release.config.ts', text: block.body };
}

const all = blocks();
const configs = all.filter(
  (b) =>
    b.fragment ||
    ((b.lang === 'ts' || b.lang === 'typescript') && isWholeTs(b.body)) ||
    (b.lang === 'json' && jsonConfig(b.body)),
);
const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

/** Make the files the config names, as a project that builds it would have them. */
function writeNamedFiles(repo: GitRepo, config: ReleaseConfig): void {
  const file = (path: string, content: string) => {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    writeFileSync(join(repo.dir, path), content);
  };
  for (const artifact of Object.values(config.artifacts)) {
    if (artifact.kind !== 'image' || artifact.implicit || artifact.roleOf) continue;
    if (artifact.context) {
      mkdirSync(join(repo.dir, artifact.context), { recursive: true });
      file(artifact.dockerfile ?? `${artifact.context}/Dockerfile`, 'FROM scratch\nCOPY . /app\n');
    }
    for (const { from } of artifact.files ?? []) {
      // A name with an extension is a file; else a folder (`worker`, `web/dist`).
      if (basename(from).includes('.')) file(from, 'export {};\n');
      else file(`${from}/main.mjs`, 'export {};\n');
    }
  }
}

describe('config examples in the docs', () => {
  it('finds the examples (whole configs, fragments, the roles example)', () => {
    expect(configs.length).toBeGreaterThanOrEqual(12);
    expect(configs.filter((b) => b.fragment).length).toBeGreaterThanOrEqual(5);
    expect(configs.some((b) => b.page.endsWith('your-own-service.md') && /acme-app/.test(b.body))).toBe(true);
  });

  it('every ts block is a whole config or marked as a fragment; no JSON block half-looks like one', () => {
    const unclassified = all
      .filter((b) => (b.lang === 'ts' || b.lang === 'typescript') && !b.fragment && !isWholeTs(b.body))
      .map((b) => `${b.page}:${b.line}`);
    expect(unclassified, 'mark a fragment with <!-- fragment --> above its block').toEqual([]);
    const marked = all.filter((b) => b.fragment && b.lang !== 'ts').map((b) => `${b.page}:${b.line}`);
    expect(marked, 'a fragment is a ts block').toEqual([]);
    // What a user copies into a file of its own runs there: a whole TypeScript config imports
    // defineConfig (it is no global).
    const noImport = all
      .filter((b) => b.lang === 'ts' && !b.fragment && /\bdefineConfig\(/.test(b.body))
      .filter((b) => !b.body.includes("import { defineConfig } from 'service-release';"))
      .map((b) => `${b.page}:${b.line}`);
    expect(noImport, "import { defineConfig } from 'service-release';").toEqual([]);
  });

  it.each(configs.map((b) => [`${b.page}:${b.line}${b.fragment ? ' (fragment)' : ''}`, b] as const))(
    '%s loads, validates, and builds what it declares',
    async (_, block) => {
      const repo = GitRepo.create('docs-config-');
      repos.push(repo);
      const { name, text } = configFile(block);
      repo.write(name, text);
      const { config } = await loadConfig({ cwd: repo.dir });
      const declared = Object.values(config.artifacts).filter((a) => !a.implicit);
      if (block.notBuilt) return; // the page says why: loading and validating it was the check
      if (declared.every((a) => a.kind !== 'image')) return; // no image to build: loading it was the check
      writeNamedFiles(repo, config);
      repo.commit('the files the config names');
      const dryRun = await runRelease(['build', '--dry-run', '--json'], { cwd: repo.dir });
      const report = jsonOf<{
        usable: string[];
        engines: { engine: string; problems: string[]; builds: object }[];
      }>(dryRun);
      expect(report.usable, `${dryRun.stdout}\n${dryRun.stderr}`).not.toEqual([]);
      expect(dryRun.code).toBe(0);
      // Only what it declares is built: an undeclared role keeps its default name, nothing to build.
      const builders = declared.filter((a) => a.kind === 'cli' || !a.roleOf).map((a) => a.name);
      for (const engine of report.engines.filter((e) => report.usable.includes(e.engine)))
        expect(Object.keys(engine.builds).sort(), engine.engine).toEqual([...builders].sort());
    },
  );
});
