import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION_LABEL } from '../../src/oci-image/version-layer.ts';
import type { ImageStore } from '../../src/registry/store.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, makeIndex, pushImage, pushIndex, pushManifestList } from '../helpers/make-image.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

export const REPOS = { api: 'service-api', worker: 'service-worker', web: 'service-web' } as const;
export type Artifact = keyof typeof REPOS;
export const ARTIFACTS = Object.keys(REPOS) as Artifact[];

/**
 * A project to promote from: a real git repository tagged `tag`, stamped by the real
 * `release stamp`, with `config` as its release.config.json.
 */
export async function stampedProject(tag: string, config: Record<string, unknown>): Promise<GitRepo> {
  const repo = GitRepo.create('promote-');
  repo.write('release.config.json', JSON.stringify(config));
  repo.write('.gitignore', 'dist/\n.release/\n');
  repo.commit('initial');
  repo.annotatedTag(tag);
  const stamped = await runRelease(['stamp', '--json'], { cwd: repo.dir });
  if (stamped.code !== 0) throw new Error(`stamp failed: ${stamped.stderr}`);
  jsonOf(stamped);
  return repo;
}

/**
 * What `release build` leaves: each artifact's digest in the record; with `version`, the record
 * says it built that version (an rc promotion must promote the version its build baked in).
 */
export function recordDigests(repo: GitRepo, digests: Record<Artifact, string>, version?: string): void {
  const path = join(repo.dir, 'dist', 'release.json');
  const record = JSON.parse(readFileSync(path, 'utf8'));
  for (const a of ARTIFACTS) record.artifacts[a].digest = digests[a];
  if (version) {
    record.version = version;
    record.tag = version;
  }
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}

export function readRecord(repo: GitRepo) {
  return JSON.parse(readFileSync(join(repo.dir, 'dist', 'release.json'), 'utf8'));
}

/** Push a fresh random image (or a two-platform index) for every artifact under `tags`. */
export async function pushRelease(
  store: ImageStore,
  tags: string[],
  options: { multiArch?: boolean; size?: number } = {},
): Promise<Record<Artifact, string>> {
  const digests = {} as Record<Artifact, string>;
  for (const a of ARTIFACTS) {
    if (options.multiArch) {
      const index = makeIndex([makeImage({ architecture: 'amd64' }), makeImage({ architecture: 'arm64' })]);
      digests[a] = await pushIndex(store, REPOS[a], index);
    } else {
      digests[a] = await pushImage(store, REPOS[a], makeImage({ size: options.size ?? 512 }));
    }
    const manifest = (await store.getManifest(REPOS[a], digests[a]))!;
    for (const tag of tags)
      await store.putManifest(REPOS[a], tag, manifest.bytes, manifest.descriptor.mediaType);
  }
  return digests;
}

/** Each artifact's digest under `tag`, or null where the tag does not exist. */
export async function digestsOf(store: ImageStore, tag: string): Promise<Record<Artifact, string | null>> {
  const out = {} as Record<Artifact, string | null>;
  for (const a of ARTIFACTS) out[a] = (await store.resolve(REPOS[a], tag))?.digest ?? null;
  return out;
}

interface PlanJson {
  artifacts: {
    artifact: string;
    writes: { reference: string; kind: string; from: string | null; to: string; reason: string }[];
    kept: { reference: string; digest: string | null; reason: string }[];
  }[];
}
interface ResultJson {
  status: string;
  written: { reference: string }[];
  undone: { reference: string }[];
}

/** The `--json` document of `release promote` (success or error), as far as the tests read it. */
export interface PromoteJson {
  dryRun: boolean;
  channel: string;
  tag: string;
  plan: PlanJson;
  result: ResultJson;
  error: { code: string; hint?: string; exitCode: number; result: ResultJson; plan: PlanJson };
}

/**
 * What a buildx build of every artifact leaves: per artifact an untagged index of two platform
 * images (amd64, arm64), each labelled with `version`; web as a Docker manifest list, which has no
 * annotation to name its rc, so readers find it through its children. Returns the index digests.
 */
export async function pushTwoPlatformSet(
  store: ImageStore,
  version: string,
): Promise<Record<Artifact, string>> {
  const digests = {} as Record<Artifact, string>;
  for (const a of ARTIFACTS) {
    const labels = { [VERSION_LABEL]: version };
    const index = makeIndex([
      makeImage({ architecture: 'amd64', labels }),
      makeImage({ architecture: 'arm64', labels }),
    ]);
    digests[a] =
      a === 'web' ? await pushManifestList(store, REPOS[a], index) : await pushIndex(store, REPOS[a], index);
  }
  return digests;
}
