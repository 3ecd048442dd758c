/**
 * What a Dockerfile is called by its path: whether a file is one (Docker's usual names, and
 * `docker/dockerfile`, which Docker reads as well), and the artifact it suggests. Pure.
 */

// Folders that say "the Dockerfiles live here", not what they build: an artifact is named after
// the folder above them (`server/docker/Dockerfile` is server), else it is the app.
const PACKAGING_FOLDERS = new Set([
  'docker',
  '.docker',
  'dockerfiles',
  'container',
  'containers',
  'build',
  'package',
  'packaging',
  'deploy',
  'deployment',
  'deployments',
  'image',
  'images',
  'oci',
]);

/** `Dockerfile`, `dockerfile`, `Dockerfile.<x>`, `Dockerfile-<x>`, `<x>.Dockerfile` (any case). */
export function isDockerfile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return (
    base === 'Dockerfile' ||
    base === 'dockerfile' ||
    base.startsWith('Dockerfile.') ||
    base.startsWith('Dockerfile-') ||
    base.toLowerCase().endsWith('.dockerfile')
  );
}

/** `Dockerfile.worker`, `Dockerfile-worker`, `worker.Dockerfile`: worker; none for a plain one. */
export function dockerfileSuffix(path: string): string | undefined {
  const file = path.slice(path.lastIndexOf('/') + 1);
  const lower = file.toLowerCase();
  if (lower.startsWith('dockerfile.') || lower.startsWith('dockerfile-'))
    return file.slice('dockerfile.'.length) || undefined;
  if (lower.endsWith('.dockerfile')) return file.slice(0, -'.dockerfile'.length) || undefined;
  return undefined;
}

/**
 * The artifact a Dockerfile suggests: its suffix, else its folder (`api/Dockerfile`: api), past
 * packaging folders (`docker/`, `build/package/`), else `app` (the repository's one image).
 */
export function artifactOfDockerfile(path: string, context = '.'): string {
  const suffix = dockerfileSuffix(path);
  if (suffix) return suffix;
  const slash = path.lastIndexOf('/');
  const folders = (slash < 0 ? context : path.slice(0, slash)).split('/').filter((p) => p && p !== '.');
  while (folders.length && PACKAGING_FOLDERS.has(folders.at(-1)!.toLowerCase())) folders.pop();
  return folders.at(-1) ?? 'app';
}

/** Whether a Dockerfile sits in a folder of Dockerfiles (`docker/`, `build/package/`), not of code. */
export function inPackagingFolder(path: string): boolean {
  const slash = path.lastIndexOf('/');
  const folder = slash < 0 ? '' : path.slice(path.lastIndexOf('/', slash - 1) + 1, slash);
  return PACKAGING_FOLDERS.has(folder.toLowerCase());
}
