import type { Finding, ImageProvenance, ProvenanceReading } from '../types.ts';

/**
 * A release made from an rc must be the rc's tested code: the rc it names exists, its
 * code layers are the rc's, it is exactly the rc re-stamped for its tag (a changed version layer
 * or config is refused), and with a key the rc is signed and the release's signature binds it to
 * that rc. Unsigned releases are a notice unless signatures are required. A multi-platform index
 * is held to the same as a whole and per platform (a node runs its platform's image), and every
 * platform of its rc must still be there.
 */
export function checkProvenance(readings: ProvenanceReading[], requireSignature: boolean): Finding[] {
  return readings.flatMap((r): Finding[] => {
    const ref = `${r.repository}:${r.tag}`;
    const about = { artifact: r.artifact };
    if (r.error !== undefined) {
      return [
        {
          code: 'PROVENANCE_UNREADABLE',
          message: `${r.artifact}: could not read ${ref}: ${r.error}`,
          fix: 'check the registry address and credentials, and that the release tag was published',
          severity: 'notice',
          ...about,
        },
      ];
    }
    const platformsChanged = Boolean(r.missingPlatforms?.length || r.extraPlatforms?.length);
    const findings = [
      ...platformFindings(r),
      // A missing or added platform is why the index is not its rc re-stamped: said once, above.
      ...imageFindings(r, { label: r.artifact, ref, tag: r.tag, platformsChanged }, requireSignature),
    ];
    for (const p of r.platforms ?? []) {
      const label = `${r.artifact} (${p.platform})`;
      const child = { label, ref: `${ref} ${p.platform} (${p.digest.slice(0, 19)})`, tag: r.tag };
      if (p.notInRc) {
        findings.push({
          code: 'RELEASE_PLATFORM_NOT_IN_RC',
          message: `${label}: ${child.ref} names the rc ${p.madeFrom?.slice(0, 19)}, which is not the ${p.platform} image of the rc ${r.madeFrom?.slice(0, 19)} the index names`,
          fix: `release again from the rc: release promote --channel release --from <rc tag> --version ${r.tag}`,
          severity: 'drift',
          artifact: r.artifact,
        });
      }
      findings.push(
        ...imageFindings(p, child, requireSignature).map((f) => ({ ...f, artifact: r.artifact })),
      );
    }
    return findings;
  });
}

/** Platforms of the rc missing from the release, and platforms the rc never had. */
function platformFindings(r: ProvenanceReading): Finding[] {
  const ref = `${r.repository}:${r.tag}`;
  const again = `release again from the rc: release promote --channel release --from <rc tag> --version ${r.tag}`;
  const findings: Finding[] = [];
  if (r.missingPlatforms?.length) {
    findings.push({
      code: 'RELEASE_PLATFORM_MISSING',
      message: `${r.artifact}: ${ref} lacks ${r.missingPlatforms.join(', ')}, which its rc ${r.madeFrom?.slice(0, 19)} has: nodes of ${r.missingPlatforms.length === 1 ? 'that platform' : 'those platforms'} have no release to run`,
      fix: again,
      severity: 'drift',
      artifact: r.artifact,
    });
  }
  if (r.extraPlatforms?.length) {
    findings.push({
      code: 'RELEASE_PLATFORM_NOT_IN_RC',
      message: `${r.artifact}: ${ref} has ${r.extraPlatforms.join(', ')}, which its rc ${r.madeFrom?.slice(0, 19)} does not: never a tested rc`,
      fix: again,
      severity: 'drift',
      artifact: r.artifact,
    });
  }
  return findings;
}

/** The findings on one image, or on an index as a whole, or on one platform child. */
function imageFindings(
  r: ImageProvenance,
  what: { label: string; ref: string; tag: string; platformsChanged?: boolean },
  requireSignature: boolean,
): Finding[] {
  if (!r.madeFrom) return [];
  const { label, ref, tag } = what;
  const findings: Finding[] = [];
  if (r.rcMissing) {
    findings.push({
      code: 'RELEASE_RC_MISSING',
      message: `${label}: ${ref} names the rc ${r.madeFrom}, which is not in the store: its code cannot be traced to a tested rc`,
      fix: 'release from an rc that is kept in the registry (release promote --channel release --from <rc>)',
      severity: 'drift',
      artifact: label,
    });
    return findings;
  }
  if (r.codeLayers && !r.codeLayers.equal) {
    findings.push({
      code: 'RELEASE_CODE_DIFFERS',
      message: `${label}: the code layers of ${ref} are not those of the rc ${r.madeFrom.slice(0, 19)} it names: it is not the tested code`,
      fix: `release again from the rc: release promote --channel release --from <rc tag> --version ${tag}`,
      severity: 'drift',
      artifact: label,
    });
  } else if (r.restampMatches === false && !what.platformsChanged) {
    findings.push({
      code: 'RELEASE_NOT_RC_RESTAMP',
      message: `${label}: ${ref} is not the rc ${r.madeFrom.slice(0, 19)} re-stamped as ${tag}: its version layer or config was changed after the release`,
      fix: `do not deploy ${ref}; release again from the rc (release promote --channel release --from <rc tag> --version ${tag})`,
      severity: 'drift',
      artifact: label,
    });
  }
  if (r.cliArchiveSignature === 'invalid' || r.cliArchiveSignature === 'missing') {
    findings.push({
      code: 'RELEASE_ARCHIVE_UNSIGNED',
      message: `${label}: the CLI archive in ${ref} ${r.cliArchiveSignature === 'missing' ? 'lost the signature its rc had' : 'carries a signature that does not verify with signing.publicKey'}: every svc built with the key refuses to update from it`,
      fix: `do not deploy ${ref}; release again from the rc with the signing key (release promote --channel release --from <rc tag> --version ${tag})`,
      severity: 'drift',
      artifact: label,
    });
  }
  if (r.rcSignature !== undefined && r.rcSignature !== 'valid') {
    findings.push({
      code: 'RELEASE_RC_UNSIGNED',
      message: `${label}: the rc ${r.madeFrom.slice(0, 19)} that ${ref} was made from is ${r.rcSignature === 'missing' ? 'not signed' : 'wrongly signed'}`,
      fix: 'release only from a signed rc (release promote --channel rc signs)',
      severity: 'drift',
      artifact: label,
    });
  }
  if (r.releaseSignature !== undefined && r.releaseSignature !== 'bound') {
    findings.push({
      code: 'RELEASE_NOT_BOUND',
      message: `${label}: ${ref} ${r.releaseSignature === 'unbound' ? 'is signed, but not bound to the rc it names' : r.releaseSignature === 'missing' ? 'is not signed' : 'is wrongly signed'}`,
      fix: 'promote the release with the signing key (release promote --channel release --from <rc> signs it, bound to the rc)',
      severity: requireSignature ? 'drift' : 'notice',
      artifact: label,
    });
  }
  return findings;
}
