import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { isRegistryReference } from '../../config/schema.ts';
import { currentIo } from '../../console/cli-io.ts';
import { RuleError, UsageError } from '../../errors.ts';
import { detectProject } from '../../init/detect.ts';
import { listProject } from '../../init/list-project.ts';
import { pipelineFacts } from '../../init/pipeline-facts.ts';
import { planConfig } from '../../init/plan-config.ts';
import { renderJsonConfig, renderTsConfig } from '../../init/render-config.ts';
import { renderGithubWorkflow } from '../../init/render-github-workflow.ts';
import { renderGitlabPipeline } from '../../init/render-gitlab-pipeline.ts';
import { printableLines } from '../../text/printable.ts';
import { projectDir } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';
import type { InitOptions } from './init-options.ts';

const CONFIG_NAMES = ['release.config.ts', 'release.config.mjs', 'release.config.js', 'release.config.json'];
// Where each platform's pipeline goes. GitLab's own file is the project's: ours is included from it.
const CI_FILES = {
  github: { render: renderGithubWorkflow, path: '.github/workflows/release.yml' },
  gitlab: { render: renderGitlabPipeline, path: '.gitlab/release.gitlab-ci.yml' },
} as const;

interface PlannedFile {
  path: string;
  content: string;
  /** Its current content when it exists (replaced only with --force). */
  existing?: string;
}

/**
 * `release init`: detect (pure, src/init/detect.ts), plan (pure, plan-config.ts), then write the
 * config and the CI pipeline, never over an existing file unless --force, which shows the diff.
 */
export async function runInit(options: InitOptions): Promise<void> {
  const io = currentIo();
  const cwd = projectDir(io.cwd, options.cwd);
  if (options.registry !== undefined && !isRegistryReference(options.registry))
    throw new UsageError(
      'REGISTRY_INVALID',
      `--registry ${JSON.stringify(options.registry)} is not a registry`,
      {
        hint: 'pass a registry and namespace like "ghcr.io/acme", or "oci-layout:<dir>"',
      },
    );
  const listing = listProject(cwd);
  const composeFiles = (options.composeFile ?? []).map((f) => composePath(f, listing.paths));
  const detection = detectProject(listing, composeFiles);
  const name = options.name ?? detection.name ?? basename(cwd);
  const plan = planConfig(detection, {
    name,
    composeFiles,
    tags: gitTags(cwd),
    ...(listing.exists ? { exists: listing.exists } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
  });
  const format = options.format ?? 'ts';
  const withTypes = existsSync(join(cwd, 'node_modules/service-release/package.json'));
  const files: PlannedFile[] = [
    {
      path: `release.config.${format}`,
      content: format === 'json' ? renderJsonConfig(plan) : renderTsConfig(plan, withTypes),
    },
  ];
  const ci =
    options.ci === undefined || options.ci === 'auto'
      ? detection.ci
      : options.ci === 'none'
        ? undefined
        : options.ci;
  if (ci) {
    const { render, path } = CI_FILES[ci];
    files.push({ path, content: render(pipelineFacts(plan, projectDependencies(cwd))) });
    if (ci === 'gitlab')
      plan.todo.push(`.gitlab-ci.yml: include the pipeline, \`include: { local: ${path} }\``);
  } else {
    plan.todo.push(
      'CI: no .github/ or .gitlab-ci.yml found; pass --ci github or --ci gitlab to write a pipeline',
    );
  }
  for (const file of files) {
    const full = join(cwd, file.path);
    if (existsSync(full)) file.existing = readFileSync(full, 'utf8');
  }
  const ignore = gitignoreUpdate(cwd);
  // Another form of config would be read instead of (or before) the one written: refuse that too.
  const otherConfigs = CONFIG_NAMES.filter((n) => n !== files[0]!.path && existsSync(join(cwd, n)));
  const conflicts = [...files.filter((f) => f.existing !== undefined).map((f) => f.path), ...otherConfigs];
  if (conflicts.length && !options.force) {
    throw new RuleError(
      'INIT_WOULD_OVERWRITE',
      `release init writes nothing: ${conflicts.join(', ')} already ${conflicts.length === 1 ? 'exists' : 'exist'}`,
      {
        hint: 'pass --force to replace them (the difference is shown), or remove them first',
      },
    );
  }
  if (!options.json) report(plan, files);
  const interactive = Boolean(io.stdout.isTTY && process.stdin.isTTY && !options.yes && !options.json);
  if (interactive && !(await confirm(`Write ${files.map((f) => f.path).join(' and ')}?`))) {
    throw new RuleError('INIT_DECLINED', 'release init wrote nothing (declined)', {
      hint: 'run it again, or with --yes to write without asking',
    });
  }
  for (const file of files) {
    if (file.existing !== undefined && file.existing !== file.content)
      io.stderr.write(printableLines(diff(file)));
  }
  const { writeFileAtomically } = await import('../../files/atomic-write.ts');
  const { mkdir } = await import('node:fs/promises');
  for (const file of files) {
    await mkdir(dirname(join(cwd, file.path)), { recursive: true });
    await writeFileAtomically(join(cwd, file.path), file.content);
  }
  if (ignore) await writeFileAtomically(join(cwd, '.gitignore'), ignore.content);
  const written = [...files.map((f) => f.path), ...(ignore ? ['.gitignore'] : [])];
  const commitNote = `commit ${written.join(', ')} before an rc: until then the tree is dirty and a stamp says -dirty`;
  if (options.json) {
    printJson({
      written: [
        ...files.map((f) => ({ path: f.path, replaced: f.existing !== undefined })),
        ...(ignore ? [{ path: '.gitignore', replaced: ignore.existed, added: ignore.added }] : []),
      ],
      next: commitNote,
      found: plan.found,
      guessed: plan.guessed,
      todo: plan.todo,
      ...(otherConfigs.length ? { otherConfigs } : {}),
    });
    return;
  }
  for (const file of files) printLine(`${file.existing === undefined ? 'wrote' : 'replaced'} ${file.path}`);
  if (ignore) printLine(`${ignore.existed ? 'added to' : 'wrote'} .gitignore: ${ignore.added.join(' ')}`);
  printLine('next: npx release build --dry-run   (checks the config and its inputs, builds nothing)');
  printLine(`then: ${commitNote}`);
  if (otherConfigs.length)
    printLine(
      `note: ${otherConfigs.join(', ')} also exist; release reads release.config.ts first, then .mjs, .js, .json`,
    );
}

/** The repository's tags, newest first (none outside a git repository). */
function gitTags(cwd: string): string[] {
  const run = spawnSync('git', ['tag', '--list', '--sort=-creatordate'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 8 * 1024 * 1024,
  });
  return run.status === 0 ? run.stdout.split('\n').filter(Boolean).slice(0, 10_000) : [];
}

// What the toolkit writes in a project and never commits: the OCI layout and bases, the stamp's
// and the build's output.
const IGNORED = ['.release/', 'dist/'];

/** The .gitignore with what it lacks of IGNORED appended (git's own answer), or nothing to do. */
function gitignoreUpdate(cwd: string): { content: string; added: string[]; existed: boolean } | undefined {
  // git's own answer (every rule file, negations included): status 0 ignored, 1 not ignored.
  const answers = IGNORED.map((p) => ({
    p,
    status: spawnSync('git', ['check-ignore', '--no-index', '-q', `${p}x`], { cwd }).status,
  }));
  if (answers.some((a) => a.status !== 0 && a.status !== 1)) return undefined; // not a git repository
  const missing = answers.filter((a) => a.status === 1).map((a) => a.p);
  if (!missing.length) return undefined;
  const path = join(cwd, '.gitignore');
  const existed = existsSync(path);
  const before = existed ? readFileSync(path, 'utf8') : '';
  const lead = before && !before.endsWith('\n') ? '\n' : '';
  const content = `${before}${lead}# written by release init: what service-release writes here\n${missing.map((p) => `/${p}`).join('\n')}\n`;
  return { content, added: missing.map((p) => `/${p}`), existed };
}

/** The project's npm dependencies (package.json at its top), to install only what it lacks. */
function projectDependencies(cwd: string): string[] {
  try {
    const pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((key) =>
      pkg[key] && typeof pkg[key] === 'object' ? Object.keys(pkg[key] as object) : [],
    );
  } catch {
    return [];
  }
}

/** A `--compose-file` as a path of the listing (relative to the project), or a usage error. */
function composePath(file: string, paths: readonly string[]): string {
  const relative = file.replace(/^\.\//, '');
  if (!paths.includes(relative))
    throw new UsageError(
      'COMPOSE_FILE_NOT_FOUND',
      `--compose-file ${JSON.stringify(file)} is not a file of this repository`,
      {
        hint: 'name it relative to the project folder (symbolic links and paths outside it are not read)',
      },
    );
  return relative;
}

function report(plan: ReturnType<typeof planConfig>, files: PlannedFile[]): void {
  const section = (title: string, items: string[]) => {
    if (!items.length) return;
    printLine(title);
    for (const item of items) printLine(`  - ${item}`);
  };
  section('found:', plan.found.length ? plan.found : ['nothing to build: every artifact below is a TODO']);
  section('guessed (check these):', plan.guessed);
  section('still to fill in:', plan.todo);
  printLine(
    `to write: ${files.map((f) => `${f.path}${f.existing === undefined ? '' : ' (replacing it)'}`).join(', ')}`,
  );
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(`${question} [Y/n] `)).trim().toLowerCase();
    return answer === '' || answer === 'y' || answer === 'yes';
  } finally {
    rl.close();
  }
}

/** What --force replaces, as a unified diff (git's, which every project here has). */
function diff(file: PlannedFile): string {
  const dir = mkdtempSync(join(tmpdir(), 'release-init-'));
  try {
    const before = join(dir, 'before');
    const after = join(dir, 'after');
    writeFileSync(before, file.existing ?? '');
    writeFileSync(after, file.content);
    const result = spawnSync('git', ['diff', '--no-index', '--no-color', '--', before, after], {
      encoding: 'utf8',
    });
    const text = (result.stdout ?? '')
      .replaceAll(`a${before}`, `a/${file.path}`)
      .replaceAll(`b${after}`, `b/${file.path}`)
      .replace(/^diff --git .*\n/, '');
    return text ? `replacing ${file.path}:\n${text}` : `replacing ${file.path}\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
