/**
 * Whether a CLI archive holds anything to run: a file that is not packaging metadata. An sdist
 * built from the wrong folder still has PKG-INFO, pyproject.toml and setup.cfg, and installs a
 * package with no code; `release build` refuses it rather than release it. Pure.
 */
const METADATA = new Set([
  'pkg-info',
  'setup.cfg',
  'setup.py',
  'pyproject.toml',
  'manifest.in',
  'package.json',
  'requirements.txt',
]);
const DOCUMENT =
  /^(?:readme|licen[cs]e|copying|changelog|changes|notice|authors)(?:[.-]|$)|\.(?:md|rst|txt)$/;

export function codeFiles(paths: readonly string[]): string[] {
  return paths.filter((path) => {
    const parts = path.toLowerCase().split('/');
    const base = parts.at(-1) ?? '';
    if (!base || base.startsWith('.')) return false;
    if (parts.some((part) => part.endsWith('.egg-info') || part.endsWith('.dist-info'))) return false;
    return !METADATA.has(base) && !DOCUMENT.test(base);
  });
}
