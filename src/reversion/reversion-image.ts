import { join } from 'node:path';
import type { ImageArtifactConfig } from '../config/artifacts-schema.ts';
import type { OciImageConfig } from '../engine/oci/image-config.ts';
import { RuleError } from '../errors.ts';
import type { ImageStore, Manifest } from '../registry/store.ts';
import { archiveFiles } from './archive-files.ts';
import { filesUnder } from './artifact-strategies.ts';
import { compareRebuild, type RebuildComparison } from './compare-rebuild.ts';
import { rebuildFromRc } from './rebuild-from-rc.ts';
import { parseFormatsLabel, VERSION_FILES_FORMAT_LABEL } from './version-files.ts';

export interface ImageRebuild {
  comparison: RebuildComparison;
  /** The rebuilt copy of each version-layer file whose format is `rebuild`, by image path. */
  files: Map<string, Buffer>;
}

/**
 * An image whose version layer holds files that bake the version into their code (format
 * `rebuild`, put there by the build): its build command runs again on the rc's commit with the
 * release's version, and every file its recipe copies (code layer and version layer) must be the
 * rc's, byte-identical or modulo version strings; else refused before any write, naming the
 * files. Undefined when the image has no such file. The recipe's code is the layer below the
 * version layer (the oci engine writes one code layer per recipe, see engine/oci/oci-engine.ts).
 */
export async function rebuildImageFromRc(input: {
  store: ImageStore;
  repository: string;
  rc: Manifest;
  artifact: ImageArtifactConfig;
  projectDir: string;
  rcTag: string;
  version: string;
  env: Record<string, string | undefined>;
  progress: (line: string) => void;
}): Promise<ImageRebuild | undefined> {
  const { store, repository, artifact } = input;
  const json = JSON.parse(Buffer.from(input.rc.bytes).toString('utf8')) as {
    config?: { digest: string };
    layers?: { digest: string }[];
  };
  if (!json.config || !json.layers || json.layers.length < 2) return undefined;
  const config = JSON.parse(
    Buffer.from(await store.getBlob(repository, json.config.digest)).toString('utf8'),
  ) as OciImageConfig;
  const formats = parseFormatsLabel(config.config?.Labels?.[VERSION_FILES_FORMAT_LABEL]);
  const baked = [...formats].filter(([, f]) => f.format === 'rebuild').map(([path]) => path);
  if (baked.length === 0) return undefined;
  if (!artifact.build)
    throw new RuleError(
      'REBUILD_WITHOUT_COMMAND',
      `${artifact.name}: its image bakes the version into ${baked.join(', ')}, and it has no build command to rebuild it`,
      {
        hint: 'nothing was written; give the artifact its build command again, or cut a new rc',
      },
    );
  const prefixes = (artifact.files ?? []).map((f) => f.to.replace(/\/$/, ''));
  const mine = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));
  const rcFiles = new Map<string, Buffer>();
  for (const layer of json.layers.slice(-2))
    for (const [path, bytes] of await archiveFiles(
      await store.getBlob(repository, layer.digest),
      `${repository}'s rc layer`,
    ))
      if (mine(`/${path}`)) rcFiles.set(`/${path}`, bytes);
  const rebuilt = await rebuildFromRc({
    projectDir: input.projectDir,
    rcTag: input.rcTag,
    version: input.version,
    at: `artifacts.${artifact.name}.build.command`,
    command: artifact.build.command,
    outputs: [],
    collect: async (dir) => {
      const out = new Map<string, Buffer>();
      for (const f of artifact.files ?? [])
        for (const [p, b] of await filesUnder(join(dir, f.from), f.to)) out.set(p, b);
      return out;
    },
    env: input.env,
    progress: input.progress,
  });
  const comparison = compareRebuild(rcFiles, rebuilt, input.rcTag, input.version);
  const renamed = comparison.versionOnly.filter((d) => d.renamed && baked.includes(d.path));
  if (!comparison.equal || renamed.length) {
    const wrong = [
      ...comparison.code,
      ...renamed.map((d) => ({ ...d, reason: 'its name carries the version' })),
    ];
    throw new RuleError(
      'REBUILD_NOT_THE_RC',
      `${artifact.name} rebuilt from ${input.rcTag}'s commit as ${input.version} is not the rc's code: ${wrong
        .slice(0, 8)
        .map((d) => `${d.path} (${d.reason})`)
        .join(', ')}${wrong.length > 8 ? ` and ${wrong.length - 8} more` : ''}`,
      {
        hint: `nothing was written; the build must be reproducible, differing only in version strings. Cut a new rc, or declare artifacts.${artifact.name}.reversion "in-place"`,
      },
    );
  }
  return { comparison, files: new Map(baked.map((path) => [path, rebuilt.get(path)!])) };
}
