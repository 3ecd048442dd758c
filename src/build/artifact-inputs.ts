import { dirname, join, normalize } from 'node:path';
import { builtImageArtifacts, cliArtifact } from '../config/artifacts.ts';
import { OCI_LAYOUT_PREFIX } from '../config/constants.ts';
import type { ReleaseConfig } from '../config/schema.ts';

/**
 * What goes into the images, as the config declares it (paths relative to the config's folder):
 * each image artifact's docker `context` and its recipe's `files[].from`. An untracked file under
 * one of these would ship in a layer and could not be rebuilt from the tag
 * (docs/guides/release-integrity.md), so it makes the tree dirty.
 */
export function artifactInputs(config: Pick<ReleaseConfig, 'artifacts'>): string[] {
  const paths = builtImageArtifacts(config).flatMap((artifact) => [
    ...(artifact.context ? [artifact.context] : []),
    ...(artifact.files ?? []).map((file) => file.from),
  ]);
  return [...new Set(paths.map(tidy))].sort();
}

/**
 * What the toolkit itself writes inside the project, never an input of anyone's: the record and
 * the stamp's files beside it, the CLI archive (and its signature), the OCI layouts of the store
 * and the bases. A docker context of `.` would otherwise count a second stamp's own record.
 */
export function toolkitOutputs(config: Pick<ReleaseConfig, 'artifacts' | 'record' | 'registry'>): string[] {
  const recordDir = dirname(config.record);
  const stampFiles = ['release.env', 'build-args.json', 'cli-version.json'].map((f) => join(recordDir, f));
  const archive = cliArtifact(config)?.build?.archive;
  const layouts = [config.registry, ...builtImageArtifacts(config).map((a) => a.base)]
    .filter((ref) => ref.startsWith(OCI_LAYOUT_PREFIX))
    .map((ref) => layoutDir(ref.slice(OCI_LAYOUT_PREFIX.length), ref === config.registry));
  return [
    ...new Set(
      [config.record, ...stampFiles, ...(archive ? [archive, `${archive}.sig`] : []), ...layouts].map(tidy),
    ),
  ].sort();
}

/** The store's layout is the folder itself; a base `<dir>/<repository>[:tag]` lives in `<dir>`. */
function layoutDir(path: string, isStore: boolean): string {
  if (isStore) return path;
  return dirname(path.replace(/[:@][^/]*$/, ''));
}

/** `./a/b/` -> `a/b`; `.` stays `.`. */
function tidy(path: string): string {
  const clean = normalize(path).replace(/\/+$/, '');
  return clean === '' ? '.' : clean;
}
