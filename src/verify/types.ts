import type { SkewVerdict } from '../version/skew.ts';

/**
 * The artifacts of a deployment, in the order the report lists them: the four of the spec, and
 * the one-shot jobs (a migration) read by their last run.
 */
export const ARTIFACT_NAMES = ['api', 'worker', 'job', 'web', 'cli'] as const;
export type ArtifactName = (typeof ARTIFACT_NAMES)[number];

/**
 * What one probe read about one artifact. `source` says where it was read (a URL, a container or
 * service id, a PATH entry) so the operator can go and look. `version` is undefined when nothing
 * could be read, and then `error` says why.
 */
export interface ProbeResult {
  name: ArtifactName;
  /**
   * When one image runs several roles: the artifact this reading is of (`scheduler`, a worker);
   * its row is named by it.
   */
  role?: string;
  source: string;
  version: string | undefined;
  error?: string;
  /** The reported version's real length, when it was too long to be one and `version` is cut. */
  versionLength?: number;
  /** api only: the server's `min_cli_version`, as sent (sanitised). */
  minCliVersion?: string;
  /** How the version was found, when there was a choice (worker in Docker: env, label, tag). */
  detail?: string;
  /** worker in Docker: the image reference the container or service runs. */
  image?: string;
  /** worker in Docker: the manifest digest it runs, when the engine knows it. */
  digest?: string;
  /** worker in Docker: each place a version was found, so the checks can see them disagree. */
  evidence?: { env?: string; label?: string; tag?: string };
  /** worker in Docker: false for a stopped container (a leftover, not what serves work). */
  running?: boolean;
  /**
   * worker in Docker: a Compose one-shot job (another service waits for it to complete: a
   * migration) whose container exited 0. Not running, and not a leftover either: it is done.
   */
  finished?: boolean;
  /** A one-shot job's run that has ended: its exit code (0 is a completed run). */
  exitCode?: number;
  /** When the run ended (else began), ms since the epoch: of a job's runs, the last one counts. */
  at?: number;
}

/**
 * `drift`: the deployment is not in step (exit 1). `unreachable`: a probe that was asked for could
 * not read its artifact, so nothing can be proved (exit 3). `notice`: worth knowing, not drift.
 * `warn`: skew the policy (`skew:`) allows with a warning; exit 1 only with `--fail-on warn`.
 */
export type Severity = 'drift' | 'unreachable' | 'warn' | 'notice';

/** One thing wrong with a deployment, and the command or change that fixes it. */
export interface Finding {
  code: string;
  message: string;
  fix: string;
  severity: Severity;
  /** The artifact it is about: one of the four, or an extra image artifact (registry findings). */
  artifact?: string;
  /** The reading it is about, when an artifact was read in more than one place. */
  source?: string;
  /** The skew rule that decided it (`skew.web`, `skew.worker`, `min_cli_version`...) and why. */
  rule?: { id: string; reason: string };
  /** The table's words for it when they need the service's own names (its CLI's program). */
  why?: string;
}

/** `skipped`: the operator did not ask for it to be read (`why` says how to ask). */
export type ArtifactStatus = 'ok' | 'drift' | 'unreachable' | 'warn' | 'notice' | 'skipped';

/** One row of the report. */
export interface ArtifactRow {
  /** One of the four, or an extra image a registry finding is about. */
  name: string;
  /** The artifact of a role run from a shared image (`scheduler`), when it is not `name`. */
  role?: string;
  source: string;
  version: string | undefined;
  status: ArtifactStatus;
  /** The first finding about this row, in a few words, for the table. */
  why: string;
  /** How the version was found, when there was a choice (worker in Docker). */
  detail?: string;
}

/** Artifacts the operator did not ask to check, with how to ask. */
export interface NotChecked {
  name: ArtifactName;
  /** One of several web clients (`admin`): the artifact its row is named by. */
  role?: string;
  reason: string;
}

/** The verdict on one deployment. */
export interface DeploymentReport {
  name?: string;
  url: string;
  inStep: boolean;
  /** The tag everything was compared with, and where it came from. */
  reference: { tag: string; from: string } | undefined;
  artifacts: ArtifactRow[];
  findings: Finding[];
  /** Each artifact against the API, graded by the skew policy (absent when no API was read). */
  skew?: SkewVerdict[];
  /** `--registry`: per image, the expected tag's digest and the digests running. */
  registry?: RegistryReading[];
  /** Per image digest: whether it carries a valid signature from the configured key. */
  signatures?: SignatureReading[];
  /** A release with a store: each image's version, and the rc it was made from. */
  provenance?: ProvenanceReading[];
  /** A store and signing.publicKey: each deployed digest's SBOM, provenance and release set. */
  evidence?: EvidenceReading[];
  /** `--registry` with `artifacts.cli.publish`: the CLI package of the tag in the npm registry. */
  cliPackage?: CliPackageReading;
  exitCode: 0 | 1 | 3;
  elapsedMs: number;
}

/** One image: the digest its expected tag points to in the store, and what the engine runs. */
export interface RegistryReading {
  /** api, worker, web, or an extra image artifact of the config (a `scheduler`). */
  artifact: string;
  /**
   * One image, several roles: the role's own artifact (`scheduler`, a worker) when it is not
   * `artifact`, as the Docker rows name it. Each role has its reading, with its own containers.
   */
  role?: string;
  /** `service-worker:v1.4.0` in `store` */
  repository: string;
  tag: string;
  store: string;
  /** undefined when the tag is not in the store (and `error` is unset) or it could not be read. */
  expected: string | undefined;
  /** `expected` is a multi-platform index: its platform images, any of which a node may run. */
  platforms?: { platform: string; digest: string }[];
  error?: string;
  /** Each container or service of this image and the manifest digest it runs (when known). */
  running: { source: string; digest: string | undefined }[];
}

/**
 * Whether one image digest carries a valid signature from the configured key. `of`
 * says which digest was checked: the one a container runs, or (when no engine was read) the one
 * the deployment's tag names in the store.
 */
export interface SignatureReading {
  /** api, worker, web, or an extra image artifact of the config (a `scheduler`). */
  artifact: string;
  repository: string;
  /** undefined when there was no digest to check (then `error` says why). */
  digest: string | undefined;
  /** `container 3f2a…` / `service …` for a running digest, `service-api:v1.4.0` for a tag's. */
  of: string;
  /** Whether `of` is a container or service the engine runs (else it is the tag). */
  running: boolean;
  status: 'valid' | 'missing' | 'invalid' | 'unchecked';
  reason: string;
  keyId: string;
  /** A running platform image of the tag's index: its platform and the index, checked with it. */
  platform?: string;
  index?: string;
  /** The tag's digest is an index: each platform image's own status (all must be valid). */
  platforms?: { platform: string; digest: string; status: 'valid' | 'missing' | 'invalid' }[];
  error?: string;
}

/**
 * What one release image (or one platform child of an index) is made of: the version it reports,
 * the rc it names, whether its code layers are the rc's, whether it is exactly the rc re-stamped
 * for its tag (so nothing else, a version layer above all, was changed), and the signatures of both.
 */
export interface ImageProvenance {
  /** The manifest digest; undefined when the tag is missing or unreadable. */
  digest: string | undefined;
  /** The version the image's config reports (label, else env); an index: the one all its platforms report. */
  imageVersion?: string;
  /** The rc manifest digest the image names (label / annotation); undefined: not made from an rc. */
  madeFrom?: string;
  /** The rc image's own version, when it could be read. */
  rcVersion?: string;
  rcMissing?: boolean;
  /** Code layers (every layer but the version layer): how many, and whether all equal the rc's. */
  codeLayers?: { count: number; equal: boolean };
  /** Whether the image is byte for byte what re-stamping the rc for `tag` gives. */
  restampMatches?: boolean;
  /** With signing.publicKey: the rc's signature, and the release's bound to that rc. */
  rcSignature?: 'valid' | 'missing' | 'invalid';
  releaseSignature?: 'bound' | 'unbound' | 'missing' | 'invalid';
  /**
   * When the rc's CLI archive was signed: the release's re-signed archive's signature, checked
   * with signing.publicKey (`unchecked` without one; `missing` when the release carries none).
   */
  cliArchiveSignature?: 'valid' | 'invalid' | 'missing' | 'unchecked';
}

/** One platform child of a release index (`linux/arm64`): what a node of that platform runs. */
export interface PlatformProvenance extends ImageProvenance {
  platform: string;
  digest: string;
  /** The child names an rc image that is not its platform's child in the rc index the index names. */
  notInRc?: boolean;
}

/** One release image by its tag; a multi-platform index also per platform. */
export interface ProvenanceReading extends ImageProvenance {
  /** api, worker, web, another web client of the config (an `admin` dashboard), or (a release
   * verified in the registry alone) any image artifact. */
  artifact: string;
  repository: string;
  tag: string;
  /** The tag is not in the store. */
  missing?: boolean;
  /** A multi-platform index: each platform child, read as an image of its own. */
  platforms?: PlatformProvenance[];
  /** Platforms the rc index has and the release index lacks: those nodes have nothing to run. */
  missingPlatforms?: string[];
  /** Platforms the release index has and its rc index does not: never a tested rc. */
  extraPlatforms?: string[];
  error?: string;
}

/** The CLI package of a deployment's tag in the npm registry (`release verify --registry`). */
export interface CliPackageReading {
  package: string;
  /** The npm version of the deployment's tag (`v1.4.0` -> `1.4.0`). */
  version: string;
  registry: string;
  /** undefined when it could not be read (`error` says why). */
  exists: boolean | undefined;
  /** The package's dist-tags (`latest`, `next`, `dev`). */
  distTags: Record<string, string>;
  error?: string;
}

/**
 * Supply-chain evidence of one deployed image digest: its SBOM and provenance under the configured
 * key, and the release set found on it (`releaseSet` is the set's artifacts, by name, when valid).
 */
export interface EvidenceReading {
  /** api, worker, web, or an extra image artifact of the config (a `scheduler`). */
  artifact: string;
  repository: string;
  /** undefined when there was no digest to check (then `error` says why). */
  digest: string | undefined;
  /** `container 3f2a…` for a running digest, `service-api:v1.4.0` for a tag's. */
  of: string;
  sbom: EvidenceStatus;
  provenance: EvidenceStatus;
  /** The release set for the deployment's tag attached to this digest, when one verifies. */
  releaseSet?: {
    version: string;
    artifacts: Record<string, { repository: string; digest: string; children?: string[] }>;
    hasArchive: boolean;
  };
  error?: string;
}

export interface EvidenceStatus {
  status: 'valid' | 'missing' | 'invalid' | 'unchecked';
  reason: string;
}
