import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CliArtifactConfig, ImageArtifactConfig } from '../config/artifacts-schema.ts';
import { archiveFiles } from './archive-files.ts';
import { chooseStrategy, type StrategyChoice } from './choose-strategy.ts';
import { formatByName, rewriteVersionFile } from './version-files.ts';
import { carriesVersion } from './version-strings.ts';

/** Files bigger than this are not read for version strings (media, not code that prints it). */
const MAX_SCANNED_BYTES = 16 * 1024 * 1024;

/**
 * Which way a release made from an rc of this build gets its version, per artifact, from what the
 * build wrote (`release build` prints it; promote decides the CLI's again from the rc's archive).
 * An image's output is its recipe's files under their image paths; the CLI's is its archive.
 */
export async function artifactStrategies(input: {
  configDir: string;
  tag: string;
  images: readonly ImageArtifactConfig[];
  cli?: { config: CliArtifactConfig; archivePath: string } | undefined;
}): Promise<Record<string, StrategyChoice>> {
  const out: Record<string, StrategyChoice> = {};
  for (const image of input.images)
    out[image.name] = (await imageReversion(input.configDir, image, input.tag)).choice;
  if (input.cli) {
    const files = await archiveFiles(await readFile(input.cli.archivePath), 'the CLI archive').catch(
      () => new Map<string, Buffer>(),
    );
    out[input.cli.config.name] = chooseStrategy({
      kind: 'cli',
      declared: input.cli.config.reversion,
      builtByCommand: input.cli.config.build !== undefined,
      carryingVersion: [...files]
        .filter(([path, bytes]) => carriesVersion(`${path}\n${bytes.toString('latin1')}`, input.tag))
        .map(([path]) => path),
      inPlace: files.has('package/package.json') ? ['package/package.json'] : [],
    });
  }
  return out;
}

/**
 * An image's strategy, and for `rebuild` and `rewrite` the files of its output that bake the
 * version outside its in-place version files: the build puts them in the version layer (format
 * `rebuild`), so the code layer stays the rc's and a release swaps only them, for their rebuilt
 * copies or the rc's with their version strings rewritten (reversion/reversion-image.ts).
 */
export async function imageReversion(
  configDir: string,
  image: ImageArtifactConfig,
  tag: string,
): Promise<{ choice: StrategyChoice; baked: string[] }> {
  const carrying = new Map<string, Buffer>();
  for (const f of image.files ?? [])
    for (const [path, bytes] of await filesUnder(resolve(configDir, f.from), f.to))
      if (carriesVersion(`${path}\n${bytes.toString('latin1')}`, tag)) carrying.set(path, bytes);
  // Undeclared, a web client's version.json and index.html are re-written in place by name,
  // unless they carry the version elsewhere too (a page title, a script URL `app.js?v=…`): a
  // re-written meta tag would leave those saying the rc, so they count as baked.
  const inPlace =
    image.versionFiles?.map((f) => f.path) ??
    (image.role === 'web'
      ? [...carrying].filter(([p, bytes]) => onlyInItsField(p, bytes, tag)).map(([p]) => p)
      : []);
  let choice = chooseStrategy({
    kind: 'image',
    declared: image.reversion,
    builtByCommand: image.build !== undefined,
    carryingVersion: [...carrying.keys()],
    inPlace,
  });
  // A Dockerfile's RUN steps may bake the version anywhere: which files carry it is only known
  // from the built image, whose layers a release from the rc scans (restamp), not from here.
  if (choice.strategy === 'in-place' && !image.files && inPlace.length === 0)
    choice = {
      ...choice,
      reason: 'version env and labels, and any file of the rc that carries its version (found when released)',
    };
  return {
    choice,
    baked:
      choice.strategy === 'rebuild' || choice.strategy === 'rewrite'
        ? [...carrying.keys()].filter((p) => !inPlace.includes(p)).sort()
        : [],
  };
}

/** Whether re-writing the file's version field by its name's format removes every version string. */
function onlyInItsField(path: string, bytes: Buffer, tag: string): boolean {
  const format = formatByName(path);
  if (!format) return false;
  try {
    const out = rewriteVersionFile(path, bytes, format, 'v0.0.0-placeholder');
    return !carriesVersion(out.toString('latin1'), tag);
  } catch {
    return false; // no such field: the name rule cannot re-write it
  }
}

/** The regular files at `source` (a file or a folder), by the image path under `to`. */
export async function filesUnder(source: string, to: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const info = await stat(source).catch(() => undefined);
  if (!info) return out;
  if (info.isFile()) {
    if (info.size <= MAX_SCANNED_BYTES) out.set(to, await readFile(source));
    return out;
  }
  if (!info.isDirectory()) return out;
  for (const entry of await readdir(source, { withFileTypes: true })) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    for (const [path, bytes] of await filesUnder(
      join(source, entry.name),
      `${to.replace(/\/$/, '')}/${entry.name}`,
    ))
      out.set(path, bytes);
  }
  return out;
}
