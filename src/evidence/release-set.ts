import { imageSubject, PREDICATE, type Subject, statementBytes } from './statements.ts';

/** One image artifact of a release: its repository, digest and, for an index, each child's digest. */
export interface ReleaseSetImage {
  artifact: string;
  repository: string;
  digest: string;
  children: readonly string[];
  /** A release re-stamped from an rc: the rc digest. */
  madeFrom?: string;
  /**
   * One image, several roles: every artifact that runs it with its role (`scheduler: worker`),
   * the image itself named once, under the artifact that builds it.
   */
  roles?: Readonly<Record<string, string>>;
}

export interface ReleaseSetInput {
  /** The version tag (`v1.2.0`). */
  version: string;
  channel: 'rc' | 'release';
  commit: string | null;
  images: readonly ReleaseSetImage[];
  /** The CLI archive as shipped (its file name and SHA-256 hex). */
  archive?: { name: string; sha256: string };
  /** The npm package, when published: `name@version` and its integrity (`sha512-<base64>`). */
  npmPackage?: { name: string; version: string; integrity: string };
}

/**
 * The one statement that names a whole release: every image digest (index and children), the
 * CLI archive and the npm package as subjects, and a predicate with the version, the channel,
 * the rc digests it was made from and the commit. Sorted, so the same release gives the same bytes.
 */
export function releaseSetStatement(input: ReleaseSetInput): Buffer {
  const images = [...input.images].sort((a, b) => a.artifact.localeCompare(b.artifact));
  const subjects: Subject[] = [];
  for (const image of images) {
    subjects.push(imageSubject(image.repository, image.digest));
    for (const child of [...image.children].sort()) subjects.push(imageSubject(image.repository, child));
  }
  if (input.archive) subjects.push({ name: input.archive.name, digest: { sha256: input.archive.sha256 } });
  if (input.npmPackage) subjects.push(npmSubject(input.npmPackage));
  const predicate = {
    version: input.version,
    channel: input.channel,
    commit: input.commit,
    artifacts: Object.fromEntries(
      images.map((i) => [
        i.artifact,
        {
          repository: i.repository,
          digest: i.digest,
          ...(i.children.length ? { children: [...i.children].sort() } : {}),
          ...(i.madeFrom ? { madeFrom: i.madeFrom } : {}),
          ...(i.roles ? { roles: i.roles } : {}),
        },
      ]),
    ),
    ...(input.archive ? { cliArchive: input.archive } : {}),
    ...(input.npmPackage ? { npmPackage: input.npmPackage } : {}),
  };
  return statementBytes(subjects, PREDICATE.releaseSet, predicate);
}

/** `pkg:npm/<name>@<version>` with the integrity's SHA-512 as hex (in-toto digests are hex). */
function npmSubject(pkg: { name: string; version: string; integrity: string }): Subject {
  const [alg, b64] = pkg.integrity.split('-', 2);
  const hex = Buffer.from(b64 ?? '', 'base64').toString('hex');
  const name = pkg.name.startsWith('@') ? `%40${pkg.name.slice(1)}` : pkg.name;
  return { name: `pkg:npm/${name}@${pkg.version}`, digest: { [alg ?? 'sha512']: hex } };
}

/** What a verified release-set statement says, for verify. */
export interface ReleaseSetClaim {
  version: string;
  channel: string;
  artifacts: Record<string, { repository: string; digest: string; children?: string[]; madeFrom?: string }>;
}

/** The claim in a release-set predicate; a string says why it is not one. */
export function releaseSetClaim(predicate: Record<string, unknown>): ReleaseSetClaim | string {
  const { version, channel, artifacts } = predicate as Partial<ReleaseSetClaim>;
  if (typeof version !== 'string' || typeof channel !== 'string')
    return 'release set has no version or channel';
  if (!artifacts || typeof artifacts !== 'object') return 'release set names no artifacts';
  return { version, channel, artifacts };
}
