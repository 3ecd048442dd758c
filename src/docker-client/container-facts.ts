import { namesVersion } from '../channels/tags.ts';
import { splitImageRef } from '../registry/image-ref.ts';

/** The OCI annotation (and image label) a build writes its version into. */
export const OCI_VERSION_LABEL = 'org.opencontainers.image.version';

/** The first of `names` an environment (`KEY=value` lines) sets non-empty, and which it was. */
export function firstEnvValue(
  env: readonly string[] | undefined,
  names: readonly string[],
): { env: string | undefined; envName?: string } {
  for (const key of names) {
    const value = env
      ?.find((e) => e.startsWith(`${key}=`))
      ?.slice(key.length + 1)
      .trim();
    if (value) return { env: value, envName: key };
  }
  return { env: undefined };
}

/**
 * The manifest digest an image was pulled as, for the repository `reference` names: an image
 * pushed to two registries has a repo digest for each, and only the one of this repository is what
 * this reference runs (else the first, as the engine lists them).
 */
export function repoDigestOf(
  repoDigests: readonly string[] | undefined,
  reference: string,
): string | undefined {
  const repository = splitImageRef(reference).repository;
  const match = repoDigests?.find((d) => splitImageRef(d).repository === repository) ?? repoDigests?.[0];
  return match ? splitImageRef(match).digest : undefined;
}

/**
 * Which of the places a container carries a version counts: `SERVICE_VERSION` (what the worker
 * itself reports), then the OCI version label baked in at build, then the image tag unless it is a
 * floating one (`latest`, `dev`) that names no version. None of them: `unknown`.
 */
export function workerVersionOf(
  evidence: { env?: string; label?: string; tag?: string },
  envName = 'SERVICE_VERSION',
): {
  version: string;
  from: string;
} {
  if (evidence.env) return { version: evidence.env, from: envName };
  if (evidence.label) return { version: evidence.label, from: `label ${OCI_VERSION_LABEL}` };
  if (evidence.tag && namesVersion(evidence.tag)) return { version: evidence.tag, from: 'image tag' };
  return { version: 'unknown', from: 'no SERVICE_VERSION, no version label, no version tag' };
}
