import type { ImageWithRoles } from '../../config/artifacts.ts';
import type { EvidenceReading, Finding } from '../types.ts';

const SAYS = {
  missing: 'has no',
  invalid: 'has an invalid',
  unchecked: 'could not be read for its',
} as const;

/**
 * What the release set must hold: every image of the config, each once with the roles that run it
 * (`imagesWithRoles`), and the archive if there is a CLI.
 */
export interface ExpectedSet {
  images: readonly ImageWithRoles[];
  cli: boolean;
}

/**
 * Findings about the supply-chain evidence of the deployed digests. A missing or invalid SBOM or
 * provenance, or no release set, is a notice, drift with `--require-attestations`. A deployed
 * digest that the release set does not name, or a set that leaves out an artifact of the
 * config, is drift either way: the deployment is not the release that was attested.
 */
export function checkEvidence(
  readings: EvidenceReading[],
  expected: ExpectedSet,
  required: boolean,
): Finding[] {
  const findings: Finding[] = [];
  const soft = required ? 'drift' : 'notice';
  for (const r of readings) {
    const image = r.digest ? `${r.repository}@${r.digest}` : r.repository;
    for (const [what, status] of [
      ['SBOM', r.sbom],
      ['provenance', r.provenance],
    ] as const) {
      if (status.status === 'valid') continue;
      const code =
        status.status === 'unchecked'
          ? 'EVIDENCE_UNCHECKED'
          : status.status === 'missing'
            ? 'EVIDENCE_MISSING'
            : 'EVIDENCE_INVALID';
      findings.push({
        code,
        message: `${r.artifact}: ${image} (${r.of}) ${SAYS[status.status]} ${what}: ${status.reason}`,
        fix:
          status.status === 'invalid'
            ? `do not trust ${image} until you know who attached that ${what}; deploy a release built and promoted with the release key`
            : 'build with the release key at hand (release build signs and attaches the SBOM and provenance), then promote',
        severity: status.status === 'unchecked' && r.error !== undefined && required ? 'unreachable' : soft,
        artifact: r.artifact,
      });
    }
  }
  const set = readings.find((r) => r.releaseSet)?.releaseSet;
  const checked = readings.filter((r) => r.digest);
  if (!set) {
    if (checked.length > 0)
      findings.push({
        code: 'RELEASE_SET_MISSING',
        message: `no signed release set for ${checked[0]!.of.split(':').at(-1)} is attached to the deployed images`,
        fix: 'promote the release with the release key (release promote --channel rc|release attests the set)',
        severity: soft,
      });
    return findings;
  }
  for (const r of checked) {
    const named = Object.values(set.artifacts).some(
      (a) => a.repository === r.repository && (a.digest === r.digest || a.children?.includes(r.digest!)),
    );
    if (!named) {
      findings.push({
        code: 'RELEASE_SET_MISMATCH',
        message: `${r.artifact}: ${r.repository}@${r.digest} (${r.of}) is not in the release set of ${set.version}${setDigest(set, r.repository)}`,
        fix: `deploy the ${r.artifact} image the release set names (release upgrade to ${set.version}), or find out who replaced it`,
        severity: 'drift',
        artifact: r.artifact,
      });
    }
  }
  const left = expected.images.filter((image) => !inSet(set, image));
  if (left.length > 0) {
    findings.push({
      code: 'RELEASE_SET_INCOMPLETE',
      message: `the release set of ${set.version} leaves out ${left.map(named).join(', ')}`,
      fix: 'promote the whole release (every artifact of the config) with the release key',
      severity: 'drift',
    });
  }
  // A set without the archive (images that ship none) is a notice unless attestations are required.
  if (expected.cli && !set.hasArchive) {
    findings.push({
      code: 'RELEASE_SET_NO_ARCHIVE',
      message: `the release set of ${set.version} names no CLI archive`,
      fix: 'ship the CLI archive in the api image (artifacts.api.cliArchive) and promote again',
      severity: soft,
    });
  }
  return findings;
}

function setDigest(set: NonNullable<EvidenceReading['releaseSet']>, repository: string): string {
  const entry = Object.values(set.artifacts).find((a) => a.repository === repository);
  return entry ? ` (it names ${entry.digest})` : '';
}

/**
 * Whether the set names this image: under any artifact that runs it (the set names an image once,
 * under the artifact that built it when it was promoted, which a later config may call another of
 * its roles), or by its repository. Roles of one image are one image, never one entry each.
 */
function inSet(set: NonNullable<EvidenceReading['releaseSet']>, image: ImageWithRoles): boolean {
  if (image.roles.some((role) => set.artifacts[role]) || set.artifacts[image.artifact]) return true;
  return Object.values(set.artifacts).some(
    (a) => a.repository === image.repository || a.repository.endsWith(`/${image.repository}`),
  );
}

/** `api` for an image of one role, `api (run as api, worker, scheduler)` for one of several. */
function named(image: ImageWithRoles): string {
  return image.roles.length > 1 ? `${image.artifact} (run as ${image.roles.join(', ')})` : image.artifact;
}
