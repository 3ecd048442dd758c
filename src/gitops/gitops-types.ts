/**
 * The plain data `release bump` and `release verify --manifests` work on: the release as the
 * manifests should carry it, the files as read, and each place a version lives in them.
 */

/** One image of the release and every artifact (role) that names it. */
export interface ReleaseImage {
  /** The artifacts that run this image: one, or several roles of one image (API, worker by command). */
  artifacts: string[];
  /** The config's repository path (`service-api`, `acme/server`): matched as the end of a reference. */
  image: string;
  /** The record's full repository (`ghcr.io/acme/service-api`), when there is a record. */
  repository?: string;
  /** The command each role runs, by artifact (the config's `command`), to find each role's container. */
  commands?: Record<string, string[]>;
  /** The release's manifest digest, when known (the record's promotion of this tag, else its build). */
  digest?: string;
}

/** What the manifests should say. */
export interface ReleaseTarget {
  /** The image tag of the release (`v1.4.0`): every tag, `appVersion` and version variable. */
  tag: string;
  images: ReleaseImage[];
  /** The environment variables holding the service's version (`SERVICE_VERSION` and the service's own). */
  versionVariables: string[];
  /** `--pin-digest`: write `tag@sha256:…` (or the digest key beside the tag). */
  pinDigest: boolean;
  /**
   * `bump` refuses a place pinned to a digest the release does not know; `verify` compares its tag
   * and leaves the digest it cannot check.
   */
  mode: 'bump' | 'verify';
}

/**
 * `dotenv`: the `.env` beside a Compose file (its one tree is `{NAME: value}`); `other`: a file the
 * config declares keys for that is none of the known shapes.
 */
export type ManifestKind =
  | 'chart'
  | 'values'
  | 'kustomization'
  | 'kubernetes'
  | 'compose'
  | 'dotenv'
  | 'other';

/** One deployment file as read (never more than the reader's bound). */
export interface ManifestFile {
  /** The path shown to people: relative to the manifests root. */
  path: string;
  kind: ManifestKind;
  text: string;
  /** values: the chart's templates, read for `default "<repo>" .Values.x.repository` and friends. */
  templates?: string;
  /** values: the path of its chart's Chart.yaml (when the chart has one). */
  chart?: string;
  /**
   * Each key a map of the file (or a `.env`) gives twice, with its line: read as Helm, Compose and
   * kubectl read it (the last wins), never written, and drift to verify.
   */
  duplicateKeys?: { key: string; line: number }[];
  /** Keys declared in the config for this file (`global.acmeVersion` -> `version` or an artifact). */
  declared?: Record<string, string>;
}

/** What a place holds. */
export type PlaceKind =
  | 'tag' // a values `tag` (or a declared key), `tag[@digest]`
  | 'digest' // a values `digest` beside a tag, or a kustomization `digest`
  | 'reference' // a whole image reference: `repo:tag[@digest]`
  | 'new-tag' // a kustomization `images[].newTag`
  | 'app-version' // Chart.yaml `appVersion`
  | 'override' // a values `global.<app>Version` that overrides every component's tag
  | 'env'; // a version variable's value

/** One place in one file where the release's version (or digest) lives. */
export interface Place {
  file: string;
  /** The YAML document within the file (0 unless it has several). */
  doc: number;
  path: (string | number)[];
  kind: PlaceKind;
  /** The artifacts whose version this place decides; empty for appVersion and env values. */
  artifacts: string[];
  /** The value now (`null` when the key is empty or absent). */
  current: string | null;
  /** The value the release needs. */
  want: string;
  /** A container's or Compose service's entrypoint, command and args: which role of its image it runs. */
  argv?: string[];
  /** Why this place was chosen, for people (`images.sentry.tag is commented out: Chart.AppVersion`). */
  note?: string;
}

/** An image of the release no place could be found for, or a place that cannot be written. */
export interface Unplaced {
  artifacts: string[];
  reason: string;
  file?: string;
}

/** A key given twice in a file that holds the release: which one a tool reads is anyone's guess. */
export interface DuplicatePlace {
  file: string;
  key: string;
  line: number;
}

export interface BumpPlan {
  places: Place[];
  /** The places whose value changes. */
  edits: Place[];
  unplaced: Unplaced[];
  /** Bump refuses to write while there is one; verify reports each as drift. */
  duplicates: DuplicatePlace[];
}

/** `path` as people write it: `images.sentry.tag`, `spec.template.spec.containers[0].image`. */
export function keyOf(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
