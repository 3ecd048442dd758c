import { rfc3339 } from '../oci-image/image-config.ts';
import { imageSubject, PREDICATE, statementBytes } from './statements.ts';

/** The build type this toolkit's provenance describes: `release build` (or a promotion's re-stamp). */
export const BUILD_TYPE = 'https://service-release.dev/buildtypes/release-build/v1';

export interface ProvenanceInput {
  repository: string;
  digest: string;
  /** The artifact's name in the config (`api`). */
  artifact: string;
  version: string;
  /** The engine and the artifact's declared recipe: its Dockerfile (path, SHA-256) or its files. */
  engine: 'oci' | 'docker';
  recipe: Record<string, unknown>;
  /** The source: git commit (40 hex) and where it lives (the image source label), when known. */
  commit: string | null;
  source: string;
  base: { reference: string; digest: string };
  /** SOURCE_DATE_EPOCH or the commit time: the build's start and finish (never the clock). */
  epoch: number;
  builder: { id: string; toolVersion: string };
}

/**
 * A SLSA v1 provenance statement for one image. Every field comes from the input, so building
 * the same commit twice gives the same bytes (the times are the commit's, not the clock's).
 */
export function provenanceStatement(input: ProvenanceInput): Buffer {
  const resolved: Record<string, unknown>[] = [];
  if (input.commit) {
    resolved.push({
      uri: input.source === 'unknown' ? 'git' : `git+${input.source}`,
      digest: { gitCommit: input.commit },
    });
  }
  resolved.push({
    uri: `oci://${input.base.reference}`,
    digest: { sha256: imageSubject('base', input.base.digest).digest.sha256 },
    annotations: { role: 'base image' },
  });
  const time = rfc3339(input.epoch);
  const predicate = {
    buildDefinition: {
      buildType: BUILD_TYPE,
      externalParameters: { artifact: input.artifact, version: input.version, recipe: input.recipe },
      internalParameters: { engine: input.engine },
      resolvedDependencies: resolved,
    },
    runDetails: {
      builder: { id: input.builder.id, version: { 'service-release': input.builder.toolVersion } },
      metadata: { startedOn: time, finishedOn: time },
    },
  };
  return statementBytes([imageSubject(input.repository, input.digest)], PREDICATE.provenance, predicate);
}

/** The builder id of a build outside any hosted CI: this prefix and the host name. */
export const HOST_BUILDER = 'https://service-release.dev/builders/host/';

/**
 * Who built it: the CI workflow when there is one (GitHub Actions, GitLab CI), else this host.
 * Run ids are left out on purpose: they differ on every run and would break reproducibility.
 */
export function builderId(env: Record<string, string | undefined>, hostname: string): string {
  if (env['GITHUB_ACTIONS'] === 'true') {
    const server = env['GITHUB_SERVER_URL'] ?? 'https://github.com';
    if (env['GITHUB_WORKFLOW_REF']) return `${server}/${env['GITHUB_WORKFLOW_REF']}`;
    return `${server}/${env['GITHUB_REPOSITORY'] ?? 'unknown'}/actions`;
  }
  if (env['GITLAB_CI'] === 'true') {
    const server = env['CI_SERVER_URL'] ?? 'https://gitlab.com';
    return `${server}/${env['CI_PROJECT_PATH'] ?? 'unknown'}/-/ci`;
  }
  return `${HOST_BUILDER}${encodeURIComponent(hostname)}`;
}

/**
 * The provenance of a release re-stamped from an rc: the rc's build definition kept (same source,
 * same recipe, same base), the version now the release's, and the rc image itself added as a
 * resolved dependency, since the release's code layers are the rc's.
 */
export function restampedProvenance(
  rc: Record<string, unknown>,
  release: { repository: string; digest: string; version: string; rcDigest: string },
): Buffer {
  const definition = (rc['buildDefinition'] ?? {}) as {
    buildType?: string;
    externalParameters?: Record<string, unknown>;
    internalParameters?: Record<string, unknown>;
    resolvedDependencies?: unknown[];
  };
  const rcImage = imageSubject(release.repository, release.rcDigest);
  const predicate = {
    buildDefinition: {
      buildType: definition.buildType ?? BUILD_TYPE,
      externalParameters: { ...definition.externalParameters, version: release.version },
      internalParameters: { ...definition.internalParameters, restamp: true },
      resolvedDependencies: [
        ...(definition.resolvedDependencies ?? []),
        {
          uri: `oci://${release.repository}@${release.rcDigest}`,
          digest: rcImage.digest,
          annotations: { role: 'release candidate re-stamped' },
        },
      ],
    },
    runDetails: rc['runDetails'] ?? {},
  };
  return statementBytes([imageSubject(release.repository, release.digest)], PREDICATE.provenance, predicate);
}

/** The build type of an image the project's own CI built and `release adopt` took over. */
export const ADOPTED_BUILD_TYPE = 'https://service-release.dev/buildtypes/adopted/v1';

export interface AdoptedProvenanceInput {
  repository: string;
  digest: string;
  artifact: string;
  version: string;
  /** Where the digest came from: the metadata file (its SHA-256, the bake target) or the reference given. */
  adopted: Record<string, unknown>;
  /** The commit `release stamp` resolved: what the release is of, not proof of what CI compiled. */
  commit: string | null;
  source: string;
  builder: { id: string; toolVersion: string };
}

/**
 * The provenance of an adopted image says only what is known: its digest, the version it was
 * adopted as, and where the digest came from (the buildx metadata file by SHA-256, its target and
 * build reference, or the reference given). It claims no recipe, base or build time, and names no
 * resolved dependency: service-release did not build it. The builder is the job that adopted it.
 * The stamped commit is an external parameter (what the release is of), not a dependency.
 */
export function adoptedProvenanceStatement(input: AdoptedProvenanceInput): Buffer {
  const predicate = {
    buildDefinition: {
      buildType: ADOPTED_BUILD_TYPE,
      externalParameters: {
        artifact: input.artifact,
        version: input.version,
        adopted: input.adopted,
        ...(input.commit ? { stampedCommit: input.commit, source: input.source } : {}),
      },
      internalParameters: { builtBy: "the project's own CI, not service-release" },
      resolvedDependencies: [],
    },
    runDetails: {
      builder: { id: input.builder.id, version: { 'service-release': input.builder.toolVersion } },
      metadata: {},
    },
  };
  return statementBytes([imageSubject(input.repository, input.digest)], PREDICATE.provenance, predicate);
}
