import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { detectProject, type ProjectFiles } from '../../src/init/detect.ts';
import { planConfig } from '../../src/init/plan-config.ts';
import { renderTsConfig } from '../../src/init/render-config.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { runRelease } from '../helpers/run-release.ts';

// Folder and project names are the repository's, and hostile ones reach what init writes and
// prints: the release.config.ts it writes must stay valid TypeScript and load back with the same
// values (quoted by a serializer, comments escaped), and nothing it prints may start a CI workflow
// command (`::add-mask::` after a newline) or carry a raw escape sequence. Past its file budget
// it says where it stopped and how to point it.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function listing(contents: Record<string, string>): ProjectFiles {
  const known = new Set(Object.keys(contents));
  for (const path of Object.keys(contents))
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) known.add(path.slice(0, i));
  return { paths: Object.keys(contents), read: (path) => contents[path], exists: (path) => known.has(path) };
}

/** The TypeScript text compiled (syntax errors listed) and imported: its default export. */
async function load(text: string): Promise<{ errors: string[]; config: unknown }> {
  const out = ts.transpileModule(text, {
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const errors = (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (errors.length) return { errors, config: undefined };
  const mod = (await import(
    `data:text/javascript;base64,${Buffer.from(out.outputText).toString('base64')}`
  )) as {
    default: unknown;
  };
  return { errors, config: mod.default };
}

const HOSTILE = [
  '\n',
  '\r',
  "'",
  '"',
  '`',
  '\\',
  '*/',
  '/*',
  '${',
  '::add-mask::x',
  '\u001b[31m',
  '\u001b]0;title\u0007',
  '\u2028',
  '\u2029',
  'é',
  '服',
  '🚀',
  ' ',
  '//',
];
// Folder names: no `/` or NUL (a file system refuses them), not `.` or `..`.
const folderName = fc
  .array(
    fc.oneof(
      fc.constantFrom(...HOSTILE),
      fc.string({ minLength: 1, maxLength: 3 }),
      fc.constantFrom('svc', 'api', 'web'),
    ),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((parts) => parts.join('').replaceAll('/', '-').replaceAll('\u0000', '0'))
  .filter((name) => name !== '.' && name !== '..' && name.trim() !== '');

describe('release.config.ts from hostile names', () => {
  it('is valid TypeScript and loads back with the same values, whatever the folder and project names', async () => {
    await fc.assert(
      fc.asyncProperty(folderName, fc.string({ maxLength: 12 }), async (folder, project) => {
        const files = listing({
          [`${folder}/Dockerfile`]: 'FROM node:22-slim\nCOPY . /app\nCMD ["node", "/app/server.js"]\n',
          'worker/Dockerfile': 'FROM node:22-slim\nCOPY . /app\n',
        });
        const plan = planConfig(detectProject(files), { name: project, exists: files.exists! });
        plan.todo.push(`a note about ${folder}`);
        const text = renderTsConfig(plan, false);
        const { errors, config } = await load(text);
        expect(errors).toEqual([]);
        const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));
        expect(config).toEqual(expect.objectContaining({ registry: plan.registry, artifacts }));
        // The folder's own image, where init took it: its context is the name, unchanged.
        const contexts = plan.artifacts.flatMap((a) =>
          a.value && 'context' in a.value ? [a.value['context']] : [],
        );
        if (!contexts.includes(folder)) expect(plan.found.join('\n')).not.toContain(`${folder}/Dockerfile\n`);
        // No line of the file is a comment broken open, nor holds a raw control character.
        expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029]/);
      }),
      { numRuns: 300 },
    );
  });
});

const release = (repo: GitRepo, args: string[]) => runRelease(args, { cwd: repo.dir, timeoutMs: 240_000 });

describe('what init prints of hostile names', () => {
  it.each([
    ['a newline and a workflow command', 'svc\n::add-mask::x'],
    ['a carriage return and a workflow command', 'svc\r::warning::x'],
    ['ANSI escapes', 'svc\u001b[31mred\u001b]0;title\u0007'],
  ])('a folder named with %s: no workflow command, no raw escape, a config that loads', async (_, folder) => {
    const repo = GitRepo.create('init-hostile-');
    repos.push(repo);
    mkdirSync(join(repo.dir, folder));
    writeFileSync(join(repo.dir, folder, 'Dockerfile'), 'FROM node:22-slim\nCOPY . /app\n');
    mkdirSync(join(repo.dir, 'worker'));
    writeFileSync(join(repo.dir, 'worker', 'Dockerfile'), 'FROM node:22-slim\nCOPY . /app\n');
    repo.commit('service');
    for (const args of [
      ['init', '--yes'],
      ['init', '--yes', '--force', '--ci', 'github'],
    ]) {
      const init = await release(repo, args);
      expect(init.code, init.stderr).toBe(0);
      for (const line of `${init.stdout}\n${init.stderr}`.split(/\r\n|\r|\n/))
        expect(line).not.toMatch(/^\s*::/);
      expect(`${init.stdout}${init.stderr}`).not.toMatch(/[\u001b\u0007\u009b]/);
      expect(init.stdout).toContain('found:');
    }
    const text = readFileSync(join(repo.dir, 'release.config.ts'), 'utf8');
    const { errors, config } = await load(text);
    expect(errors).toEqual([]);
    const artifacts = (config as { artifacts: Record<string, { context?: string }> }).artifacts;
    expect(Object.values(artifacts).map((a) => a?.context)).toContain(folder);
  });
});

describe('the file budget', () => {
  it('says where it stopped and how to point it; --look-in reads the folder named first', async () => {
    const repo = GitRepo.create('init-budget-');
    repos.push(repo);
    mkdirSync(join(repo.dir, 'assets'));
    for (let i = 0; i < 20_000; i++) writeFileSync(join(repo.dir, 'assets', `a${i}.txt`), '');
    for (let i = 0; i < 300; i++) {
      mkdirSync(join(repo.dir, 'services', `svc${i}`), { recursive: true });
      writeFileSync(join(repo.dir, 'services', `svc${i}`, 'Dockerfile'), 'FROM node:22-slim\nCOPY . /app\n');
    }
    writeFileSync(join(repo.dir, 'Dockerfile'), 'FROM node:22-slim\nCOPY . /app\n');
    const init = await release(repo, ['init', '--yes', '--json', '--ci', 'none']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toMatch(
      /warning: init stopped looking after 20,000 files, in assets\/; not read: services\/\. .*--look-in <folder>/,
    );
    const out = JSON.parse(init.stdout) as { found: string[]; todo: string[] };
    expect(out.todo[0]).toMatch(/^init stopped looking after 20,000 files/);
    expect(out.found.filter((f) => f.startsWith('services/'))).toEqual([]);

    const pointed = await release(repo, [
      'init',
      '--yes',
      '--json',
      '--ci',
      'none',
      '--force',
      '--look-in',
      'services',
    ]);
    expect(pointed.code, pointed.stderr).toBe(0);
    const found = (JSON.parse(pointed.stdout) as { found: string[] }).found;
    expect(found.filter((f) => /^services\/svc\d+\/Dockerfile$/.test(f))).toHaveLength(300);

    const outside = await release(repo, ['init', '--yes', '--force', '--look-in', '../']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('--look-in "../": name a folder inside the project');
  });
});
