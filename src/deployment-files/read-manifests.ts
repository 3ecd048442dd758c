import { lstat, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { UsageError } from '../errors.ts';
import { dotenvDuplicates, parseDotenv } from '../gitops/dotenv.ts';
import type { ManifestKind } from '../gitops/gitops-types.ts';
import type { ParsedManifest } from '../gitops/plan-bump.ts';
import { isMap, plainTree } from '../gitops/tree.ts';
import { readYamlAsync } from '../text/parse-yaml.ts';

/** A file or folder to search, and keys the config declares for a file. */
export interface ManifestSource {
  path: string;
  keys?: Record<string, string>;
}

// Bounds on what a repository of manifests may make us read: a chart's values are tens of KB.
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_FILES = 5_000;
const SKIP_DIRS = new Set(['.git', 'node_modules']);

/**
 * Read the deployment files under each source: Helm charts (`Chart.yaml`, its `values*.yaml`, its
 * templates as text), kustomizations, plain Kubernetes manifests and Compose files. Paths are
 * shown relative to `root`. A chart's `templates/` are Go templates, not YAML: read only for the
 * defaults they name. A YAML file that is none of these is left alone; one that is but does not
 * parse stops the run (exit 2) before anything is written.
 */
export async function readManifests(root: string, sources: ManifestSource[]): Promise<ParsedManifest[]> {
  const out = new Map<string, ParsedManifest>();
  for (const source of sources) {
    const kind = await statKind(source.path);
    if (kind === 'missing')
      throw new UsageError('MANIFESTS_MISSING', `no deployment files at ${source.path}`, {
        hint: 'give --manifests <dir>, or fix the path under deploy.manifests',
      });
    const paths = kind === 'dir' ? await yamlFiles(source.path) : [source.path];
    for (const path of paths) {
      const file = await readManifest(root, path, source.keys);
      if (file)
        out.set(path, { ...out.get(path), ...file, ...(source.keys ? { declared: source.keys } : {}) });
      // Compose reads variables from the .env beside its file: images and versions live there too.
      const dotenv = join(dirname(path), '.env');
      if (file?.kind === 'compose' && !out.has(dotenv) && (await statKind(dotenv)) === 'file') {
        const text = await boundedRead(dotenv);
        const duplicates = dotenvDuplicates(text);
        out.set(dotenv, {
          path: relative(root, dotenv),
          kind: 'dotenv',
          text,
          docs: [parseDotenv(text)],
          ...(duplicates.length > 0 ? { duplicateKeys: duplicates } : {}),
        });
      }
    }
  }
  return [...out.values()];
}

async function readManifest(
  root: string,
  path: string,
  keys: Record<string, string> | undefined,
): Promise<ParsedManifest | undefined> {
  const name = basename(path);
  const chartDir = (await statKind(join(dirname(path), 'Chart.yaml'))) === 'file' ? dirname(path) : undefined;
  const known: ManifestKind | undefined =
    name === 'Chart.yaml'
      ? 'chart'
      : /^(?:kustomization\.ya?ml|Kustomization)$/.test(name)
        ? 'kustomization'
        : chartDir && /^values.*\.ya?ml$/.test(name)
          ? 'values'
          : undefined;
  const text = await boundedRead(path);
  const display = relative(root, path) || name;
  const read = await readYamlAsync(text);
  if (read.problem) {
    // A file we would write must be read exactly; any other YAML is not ours to judge.
    if (known || keys)
      throw new UsageError(
        'MANIFEST_INVALID',
        `${display} ${read.problem.code === 'YAML_SYNTAX' ? 'is not valid YAML' : 'is past what we read'} (line ${read.problem.line}: ${read.problem.message})`,
        { hint: 'fix the file (or leave it out of deploy.manifests), then run again' },
      );
    return undefined;
  }
  const docs = read.documents;
  const trees = docs.map((d) => plainTree(d.contents));
  const kind = known ?? shapeOf(trees) ?? (keys ? 'other' : undefined);
  if (!kind) return undefined;
  return {
    path: display,
    kind,
    text,
    docs: trees,
    ...(read.duplicates.length > 0 ? { duplicateKeys: read.duplicates } : {}),
    ...(kind === 'values' && chartDir
      ? {
          chart: relative(root, join(chartDir, 'Chart.yaml')) || 'Chart.yaml',
          templates: await templatesOf(chartDir),
        }
      : {}),
  };
}

/** Kubernetes objects (`apiVersion` and `kind`), or a Compose file (`services:` of mappings). */
function shapeOf(trees: unknown[]): ManifestKind | undefined {
  if (trees.some((t) => isMap(t) && typeof t['apiVersion'] === 'string' && typeof t['kind'] === 'string'))
    return 'kubernetes';
  if (trees.length === 1 && isMap(trees[0]) && isMap(trees[0]['services'])) return 'compose';
  return undefined;
}

async function templatesOf(chartDir: string): Promise<string> {
  const dir = join(chartDir, 'templates');
  if ((await statKind(dir)) !== 'dir') return '';
  const files = (await walk(dir, () => true)).filter((f) => /\.(?:ya?ml|tpl|txt)$/.test(f));
  const texts = await Promise.all(files.map(boundedRead));
  return texts.join('\n');
}

/** YAML files under `dir`, charts' templates and subcharts' archives left out. */
async function yamlFiles(dir: string): Promise<string[]> {
  const files = await walk(dir, (sub) => basename(sub) !== 'templates');
  return files.filter((f) => /\.ya?ml$/.test(f) || basename(f) === 'Kustomization');
}

async function walk(dir: string, enter: (dir: string) => boolean, found: string[] = []): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    // Symbolic links are not followed: a manifests folder must not lead the writer elsewhere.
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name) && enter(path)) await walk(path, enter, found);
    else if (entry.isFile()) found.push(path);
    if (found.length > MAX_FILES)
      throw new UsageError('MANIFESTS_TOO_MANY', `more than ${MAX_FILES} files under ${dir}`, {
        hint: 'point --manifests (or deploy.manifests) at the folder of the deployment files',
      });
  }
  return found;
}

async function boundedRead(path: string): Promise<string> {
  const info = await lstat(path);
  if (info.size > MAX_FILE_BYTES)
    throw new UsageError(
      'MANIFEST_TOO_LARGE',
      `${path} is ${info.size} bytes, over the ${MAX_FILE_BYTES} read`,
      {
        hint: 'deployment files are small: leave this one out of the manifests folder',
      },
    );
  return readFile(path, 'utf8');
}

async function statKind(path: string): Promise<'file' | 'dir' | 'missing'> {
  try {
    const info = await lstat(path);
    return info.isDirectory() ? 'dir' : info.isFile() ? 'file' : 'missing';
  } catch {
    return 'missing';
  }
}
