import type { Finding, ProvenanceReading } from './types.ts';

/**
 * A release made from an rc must be the rc's tested code: the rc it names exists, its
 * code layers are the rc's, it is exactly the rc re-stamped for its tag (a changed version layer
 * or config is refused), and with a key the rc is signed and the release's signature binds it to
 * that rc. Unsigned releases are a notice unless signatures are required.
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
    if (!r.madeFrom) return [];
    const findings: Finding[] = [];
    if (r.rcMissing) {
      findings.push({
        code: 'RELEASE_RC_MISSING',
        message: `${r.artifact}: ${ref} names the rc ${r.madeFrom}, which is not in the store: its code cannot be traced to a tested rc`,
        fix: 'release from an rc that is kept in the registry (release promote --channel release --from <rc>)',
        severity: 'drift',
        ...about,
      });
      return findings;
    }
    if (r.codeLayers && !r.codeLayers.equal) {
      findings.push({
        code: 'RELEASE_CODE_DIFFERS',
        message: `${r.artifact}: the code layers of ${ref} are not those of the rc ${r.madeFrom.slice(0, 19)} it names: it is not the tested code`,
        fix: `release again from the rc: release promote --channel release --from <rc tag> --version ${r.tag}`,
        severity: 'drift',
        ...about,
      });
    } else if (r.restampMatches === false) {
      findings.push({
        code: 'RELEASE_NOT_RC_RESTAMP',
        message: `${r.artifact}: ${ref} is not the rc ${r.madeFrom.slice(0, 19)} re-stamped as ${r.tag}: its version layer or config was changed after the release`,
        fix: `do not deploy ${ref}; release again from the rc (release promote --channel release --from <rc tag> --version ${r.tag})`,
        severity: 'drift',
        ...about,
      });
    }
    if (r.cliArchiveSignature === 'invalid' || r.cliArchiveSignature === 'missing') {
      findings.push({
        code: 'RELEASE_ARCHIVE_UNSIGNED',
        message: `${r.artifact}: the CLI archive in ${ref} ${r.cliArchiveSignature === 'missing' ? 'lost the signature its rc had' : 'carries a signature that does not verify with signing.publicKey'}: every svc built with the key refuses to update from it`,
        fix: `do not deploy ${ref}; release again from the rc with the signing key (release promote --channel release --from <rc tag> --version ${r.tag})`,
        severity: 'drift',
        ...about,
      });
    }
    if (r.rcSignature !== undefined && r.rcSignature !== 'valid') {
      findings.push({
        code: 'RELEASE_RC_UNSIGNED',
        message: `${r.artifact}: the rc ${r.madeFrom.slice(0, 19)} that ${ref} was made from is ${r.rcSignature === 'missing' ? 'not signed' : 'wrongly signed'}`,
        fix: 'release only from a signed rc (release promote --channel rc signs)',
        severity: 'drift',
        ...about,
      });
    }
    if (r.releaseSignature !== undefined && r.releaseSignature !== 'bound') {
      findings.push({
        code: 'RELEASE_NOT_BOUND',
        message: `${r.artifact}: ${ref} ${r.releaseSignature === 'unbound' ? 'is signed, but not bound to the rc it names' : r.releaseSignature === 'missing' ? 'is not signed' : 'is wrongly signed'}`,
        fix: 'promote the release with the signing key (release promote --channel release --from <rc> signs it, bound to the rc)',
        severity: requireSignature ? 'drift' : 'notice',
        ...about,
      });
    }
    return findings;
  });
}
