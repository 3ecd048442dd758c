/**
 * The config's plain values: role names, prefixes, defaults, name patterns. No zod here: the
 * modules that only need a name or a default (every command's start-up, `release stamp` above all)
 * must not load the validator to get one.
 */

// Image repository names per the distribution spec: lowercase path components.
export const REPOSITORY =
  /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
/** An artifact's name: the key under `artifacts` (also its key in the release record). */
export const ARTIFACT_NAME = /^[a-z][a-z0-9-]{0,62}$/;

export const OCI_LAYOUT_PREFIX = 'oci-layout:';
/** The minimal node base `release base-image` makes on this machine (nothing is pulled). */
export const DEFAULT_BASE_IMAGE = `${OCI_LAYOUT_PREFIX}.release/base/node:20`;

/** The roles the spec knows; an image artifact without one is an extra image (a `scheduler`). */
export const IMAGE_ROLES = ['api', 'worker', 'web'] as const;
export type ImageRole = (typeof IMAGE_ROLES)[number];
/**
 * The roles an image artifact may say it plays: the spec's three, and `job`, a one-shot container
 * of an image (a migration) that runs to completion before the API starts. A job has no default
 * artifact: a service without one declares none.
 */
export const ARTIFACT_IMAGE_ROLES = [...IMAGE_ROLES, 'job'] as const;
export type ArtifactImageRole = (typeof ARTIFACT_IMAGE_ROLES)[number];
export type Role = ImageRole | 'cli';
export const ROLES: readonly Role[] = [...IMAGE_ROLES, 'cli'];

/** Where the CLI archive goes in the API image: docker, in the context; oci, in the image. */
export const DEFAULT_CLI_ARCHIVE = { docker: 'service-cli.tar.gz', oci: '/app/service-cli.tar.gz' } as const;
/** What the svc gate prints (DESIGN.md); `{url}` is the archive's download URL. */
export const DEFAULT_INSTALL_COMMAND = 'npm install -g {url}';
