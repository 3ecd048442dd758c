import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { OCI_LAYOUT_PREFIX } from '../../config/constants.ts';
import { importConfigModule, importTypeScriptConfig } from '../../config/import-config.ts';
import { isRegistryReference } from '../../config/schema.ts';
import { currentIo } from '../../console/cli-io.ts';
import { ConfigError, RuleError, UsageError } from '../../errors.ts';
import type { WorkflowRead } from '../../init/ci/github-workflows.ts';
import { detectProject, type ProjectFiles } from '../../init/detect.ts';
import { existingPipelineWarnings } from '../../init/existing-pipelines.ts';
import { type ListingStop, listProject, lookInFolder, MAX_FILES } from '../../init/list-project.ts';
import { type MergedConfig, mergeConfig } from '../../init/merge-config.ts';
import { nodeVersion } from '../../init/node-version.ts';
import { addDevCommand, execCommand, packageManager } from '../../init/package-manager.ts';
import { pipelineFacts, type RepositoryFacts } from '../../init/pipeline-facts.ts';
import { type InitPlan, planConfig } from '../../init/plan-config.ts';
import { renderJsonConfig, renderTsConfig, SIGNING } from '../../init/render-config.ts';
import { renderGithubWorkflow } from '../../init/render-github-workflow.ts';
import { renderGitlabPipeline } from '../../init/render-gitlab-pipeline.ts';
import { tagScheme } from '../../init/tag-scheme.ts';
import { printable, printableLines } from '../../text/printable.ts';
import { projectDir } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { InitOptions } from './init-options.ts';

const CONFIG_NAMES = ['release.config.ts', 'release.config.mjs', 'release.config.js', 'release.config.json'];
// Where each platform's pipeline goes. GitLab's own file is the project's: ours is included from it.
const CI_FILES = {
  github: {
    render: renderGithubWorkflow,
    path: '.github/workflows/release.yml',
    other: '.github/workflows/service-release.yml',
  },
  gitlab: {
    render: renderGitlabPipeline,
    path: '.gitlab/release.gitlab-ci.yml',
    other: '.gitlab/service-release.gitlab-ci.yml',
  },
} as const;

/** A pipeline file init wrote before (its first line says so), which --force may replace. */
function writtenByInit(text: string): boolean {
  return /^# The release (workflow|pipeline) `release init` wrote/.test(text);
}

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
  const lookIn = (options.lookIn ?? []).map((folder) => {
    const found = lookInFolder(cwd, folder);
    if ('refused' in found)
      throw new UsageError('LOOK_IN_INVALID', `--look-in ${JSON.stringify(folder)}: ${found.refused}`, {
        hint: 'name a folder of the project, relative to it',
      });
    return found.prefix;
  });
  const listing = listProject(cwd, lookIn);
  const composeFiles = (options.composeFile ?? []).map((f) => composePath(f, listing.paths));
  const detection = detectProject(listing, composeFiles);
  const name = options.name ?? detection.name ?? basename(cwd);
  const plan = planConfig(detection, {
    name,
    composeFiles,
    tags: gitTags(cwd),
    ...(listing.exists ? { exists: listing.exists } : {}),
    read: (path) => listing.read(path),
    paths: listing.paths,
    ...(options.registry ? { registry: options.registry } : {}),
  });
  if (listing.stopped) {
    const note = budgetNote(listing.stopped);
    warn(note);
    plan.todo.unshift(note);
  }
  const format = options.format ?? 'ts';
  // --force over a config the user has edited since: their values win, nothing is dropped.
  const merged = options.force ? await mergeWithPrevious(cwd, format, plan, options.registry) : undefined;
  const rest = merged?.rest ?? { signing: SIGNING };
  const withTypes = existsSync(join(cwd, 'node_modules/service-release/package.json'));
  const files: PlannedFile[] = [
    {
      path: `release.config.${format}`,
      content: format === 'json' ? renderJsonConfig(plan, rest) : renderTsConfig(plan, withTypes, rest),
    },
  ];
  // The repository's own workflows (not one init wrote before): their tags and what they push.
  const workflows = detection.workflows.filter((w) => !writtenByInit(listing.read(w.path) ?? ''));
  const repository = repositoryFacts(cwd, listing, workflows);
  noteRepository(plan, repository, pipelineFacts(plan, repository).installDockerode);
  const ci =
    options.ci === undefined || options.ci === 'auto'
      ? detection.ci
      : options.ci === 'none'
        ? undefined
        : options.ci;
  if (ci) {
    const { render, path: usual, other } = CI_FILES[ci];
    // The repository's own release workflow is often at the usual path: ours goes beside it.
    const theirs = existsSync(join(cwd, usual)) && !writtenByInit(readFileSync(join(cwd, usual), 'utf8'));
    const path = theirs ? other : usual;
    if (theirs)
      plan.found.push(`${usual}: the repository's own; the pipeline release init writes goes to ${other}`);
    files.push({ path, content: render(pipelineFacts(plan, repository)) });
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
  const warnings = existingPipelineWarnings(
    workflows,
    publishedImages(plan),
    repository.tags,
    files[1]?.path ?? '',
  ).map((w) => w.text);
  for (const warning of warnings) warn(warning);
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
  if (!options.json) report(plan, files, merged);
  if (options.dryRun) {
    dryRunOutput(files, ignore, plan, warnings, options.json);
    return;
  }
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
      warnings,
      ...(merged ? { merged: { from: merged.from, kept: merged.kept, added: merged.added } } : {}),
      ...(otherConfigs.length ? { otherConfigs } : {}),
    });
    return;
  }
  for (const file of files) printLine(`${file.existing === undefined ? 'wrote' : 'replaced'} ${file.path}`);
  if (ignore) printLine(`${ignore.existed ? 'added to' : 'wrote'} .gitignore: ${ignore.added.join(' ')}`);
  printLine(
    `next: ${execCommand(repository.manager, 'release')} build --dry-run   (checks the config and its inputs, builds nothing)`,
  );
  printLine(`then: ${commitNote}`);
  if (otherConfigs.length)
    printLine(
      `note: ${otherConfigs.join(', ')} also exist; release reads release.config.ts first, then .mjs, .js, .json`,
    );
}

/** What --dry-run shows: each file as it would be written, and that nothing was. */
function dryRunOutput(
  files: PlannedFile[],
  ignore: { added: string[] } | undefined,
  plan: InitPlan,
  warnings: string[],
  json: boolean | undefined,
): void {
  if (json) {
    printJson({
      dryRun: true,
      wouldWrite: [
        ...files.map((f) => ({ path: f.path, replaces: f.existing !== undefined, content: f.content })),
        ...(ignore ? [{ path: '.gitignore', added: ignore.added }] : []),
      ],
      found: plan.found,
      guessed: plan.guessed,
      todo: plan.todo,
      warnings,
    });
    return;
  }
  for (const file of files) {
    printLine(`--- ${file.path} (would ${file.existing === undefined ? 'write' : 'replace'}):`);
    for (const line of file.content.replace(/\n$/, '').split('\n'))
      printLine(printable(line, { max: 10_000 }));
  }
  if (ignore) printLine(`--- .gitignore (would add): ${ignore.added.join(' ')}`);
  printLine('nothing was written (dry run)');
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

type Merged = MergedConfig & { from: string };

/**
 * The config there is (the form being written, else the one release reads first), loaded as the
 * config loader does (a TypeScript one compiled), merged under the plan: the plan takes the
 * merged registry, version variables and artifacts. None when there is no config yet.
 */
async function mergeWithPrevious(
  cwd: string,
  format: 'ts' | 'json',
  plan: InitPlan,
  registryFlag: string | undefined,
): Promise<Merged | undefined> {
  const name = [`release.config.${format}`, ...CONFIG_NAMES].find((n) => existsSync(join(cwd, n)));
  if (!name) return undefined;
  const path = join(cwd, name);
  let previous: unknown;
  try {
    if (name.endsWith('.json')) previous = JSON.parse(readFileSync(path, 'utf8'));
    else if (name.endsWith('.ts')) previous = await importTypeScriptConfig(path);
    else previous = await importConfigModule(path);
  } catch (error) {
    throw new ConfigError(
      `release init --force writes nothing: ${name} could not be read to keep your edits`,
      [printable((error as Error).message, { max: 300 })],
      {
        hint: `fix ${name}, or remove it to start afresh`,
      },
    );
  }
  if (!previous || typeof previous !== 'object' || Array.isArray(previous))
    throw new ConfigError(`release init --force writes nothing: ${name} does not hold a config object`, [], {
      hint: `fix ${name}, or remove it to start afresh`,
    });
  const merged = mergeConfig(plan, { signing: SIGNING }, previous as Record<string, unknown>, registryFlag);
  if (merged.unwritable.length)
    throw new RuleError(
      'INIT_CANNOT_MERGE',
      `release init --force writes nothing: ${name} holds values it cannot write back as they are (${merged.unwritable.map((p) => printable(p, { max: 80 })).join(', ')})`,
      { hint: `keep them where they are: edit ${name} by hand, or remove it to start afresh` },
    );
  plan.registry = merged.plan.registry;
  plan.versionVariables = merged.plan.versionVariables;
  plan.artifacts = merged.plan.artifacts;
  // What was still to fill in and the user has filled in since.
  if (!plan.registry.startsWith(OCI_LAYOUT_PREFIX)) {
    plan.todo = plan.todo.filter((t) => !t.startsWith('registry:'));
    plan.guessed = plan.guessed.filter((g) => !g.startsWith('registry:'));
  }
  return { ...merged, from: name };
}

/** The image repositories the config publishes (`ghcr.io/acme/acme-api`), none for a layout. */
function publishedImages(plan: InitPlan): string[] {
  if (plan.registry.startsWith(OCI_LAYOUT_PREFIX)) return [];
  return plan.artifacts.flatMap((a) => {
    const image = a.name !== 'cli' && a.value ? a.value['image'] : undefined;
    if (typeof image !== 'string') return [];
    return [/^[^/]+[.:][^/]*\//.test(image) ? image : `${plan.registry}/${image}`];
  });
}

/** Where init stopped looking, and how to point it at the rest. */
function budgetNote(stop: ListingStop): string {
  const unread = stop.unread.map((f) => `${printable(f, { max: 80 })}/`).join(', ');
  const more =
    stop.unreadCount > stop.unread.length ? ` and ${stop.unreadCount - stop.unread.length} more` : '';
  return `init stopped looking after ${MAX_FILES.toLocaleString('en')} files, in ${printable(stop.at, { max: 80 })}/${unread ? `; not read: ${unread}${more}` : ''}. What it found below may be incomplete: point it at the folders that hold your Dockerfiles and packages with --look-in <folder> (repeatable), or run it in a smaller checkout`;
}

/** How the repository installs, its Node and its tags: what the CI init writes follows. */
function repositoryFacts(
  cwd: string,
  listing: ProjectFiles,
  workflows: readonly WorkflowRead[],
): RepositoryFacts {
  const read = (path: string) => listing.read(path);
  // Newest first, by the date of the tag (an annotated tag's own, a light one's commit's).
  const tags = spawnSync('git', ['tag', '--list', '--sort=-v:refname', '--sort=-creatordate'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return {
    dependencies: projectDependencies(cwd),
    manager: packageManager(read),
    node: nodeVersion(read),
    tags: tagScheme(
      tags.status === 0 ? tags.stdout.split('\n').filter(Boolean) : [],
      // Workflows that build images first: their tags are the release's.
      [...workflows]
        .sort((a, b) => Number(b.builds.length > 0) - Number(a.builds.length > 0))
        .flatMap((w) => w.triggers.tags.map((pattern) => ({ file: w.path, pattern }))),
    ),
  };
}

/** What the report says of the repository's install, Node and tags, and what it must add. */
function noteRepository(plan: InitPlan, repository: RepositoryFacts, dockerode: boolean): void {
  const { manager, node, tags, dependencies } = repository;
  plan.found.push(
    `package manager: ${manager.name}${manager.name === 'yarn' ? (manager.berry ? ' 2+' : ' 1 (classic)') : ''}, from ${manager.from}`,
    `Node: ${node.from}`,
    `release tags: ${tags.example}, from ${tags.from}`,
  );
  if (node.tooOld) plan.guessed.push(node.tooOld);
  const missing = ['service-release', ...(dockerode ? ['dockerode'] : [])].filter(
    (name) => !dependencies.includes(name),
  );
  if (missing.length)
    plan.todo.push(
      `install: \`${addDevCommand(
        manager,
        missing.map((name) => (name === 'dockerode' ? 'dockerode@4' : name)),
      )}\` (${missing.includes('dockerode') ? 'dockerode drives the docker engine; ' : ''}CI installs from the lockfile)`,
    );
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

function report(plan: ReturnType<typeof planConfig>, files: PlannedFile[], merged?: Merged): void {
  const section = (title: string, items: string[]) => {
    if (!items.length) return;
    printLine(title);
    // Paths and names come from the repository: escaped, so none starts a CI workflow command
    // (a newline then `::add-mask::`) or reaches the terminal as an escape sequence.
    for (const item of items) printLine(`  - ${printable(item, { max: 1000 })}`);
  };
  section('found:', plan.found.length ? plan.found : ['nothing to build: every artifact below is a TODO']);
  section('guessed (check these):', plan.guessed);
  section('still to fill in:', plan.todo);
  if (merged) {
    section(`kept from ${merged.from} (your edits win; nothing is dropped):`, merged.kept);
    section(`added to ${merged.from} (found now):`, merged.added);
  }
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
    // The file replaced may hold anything: each line escaped as the report is.
    const shown = text
      .split('\n')
      .map((line) => printable(line, { max: 10_000 }))
      .join('\n');
    return text ? `replacing ${file.path}:\n${shown}` : `replacing ${file.path}\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
