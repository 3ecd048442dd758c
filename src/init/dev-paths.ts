import { dockerfileSuffix } from './dockerfile-name.ts';

/**
 * The folders and names of what a repository keeps for development, tests and examples, never
 * released: a Dockerfile under `examples/`, `Dockerfile.dev`, an image named `<x>-e2e`, a CLI in
 * `examples/python/quickstart`. Pure.
 */
export const DEV_FOLDERS = new Set([
  'test',
  'tests',
  'e2e',
  'example',
  'examples',
  'hack',
  'dev',
  'fixtures',
  'testdata',
  'sample',
  'samples',
  'demo',
  'docs',
  '.devcontainer',
  '.cursor',
]);

export const DEV_NAMES = new Set(['dev', 'development', 'test', 'tests', 'debug', 'local', 'ci', 'e2e']);

/** Why a path is a development, test or example one (its folder or its name), or undefined. */
export function devReason(path: string): string | undefined {
  const folder = path
    .split('/')
    .slice(0, -1)
    .find((part) => DEV_FOLDERS.has(part.toLowerCase()));
  if (folder) return `under ${folder}/`;
  const suffix = (dockerfileSuffix(path) ?? '').toLowerCase();
  if (suffix.split(/[.-]/).some((part) => DEV_NAMES.has(part)))
    return 'a development or test Dockerfile by its name';
  return undefined;
}

/** Under a development, test or example folder (`examples/python/quickstart/pyproject.toml`). */
export function inDevFolder(path: string): boolean {
  return path
    .split('/')
    .slice(0, -1)
    .some((part) => DEV_FOLDERS.has(part.toLowerCase()));
}
