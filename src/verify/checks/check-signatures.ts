import type { Finding, SignatureReading } from '../types.ts';

/**
 * Findings for images whose digest is not vouched for by the configured key: a notice by
 * default, drift with `--require-signature` (an unsigned or wrongly signed image then fails the
 * check). A store that could not be read proves nothing: unreachable when signatures are required.
 */
export function checkSignatures(readings: SignatureReading[], required: boolean): Finding[] {
  return readings.flatMap((r): Finding[] => {
    if (r.status === 'valid') return [];
    const image = r.digest ? `${r.repository}@${r.digest}` : r.repository;
    const about = { artifact: r.artifact, ...(r.running ? { source: r.of } : {}) };
    if (r.status === 'unchecked') {
      return [
        {
          code: 'SIGNATURE_UNCHECKED',
          message: `${r.artifact}: could not check the signature of ${image} (${r.of}): ${r.reason}`,
          fix: 'check the registry address and credentials, and that the release tag was published',
          severity:
            r.error !== undefined ? (required ? 'unreachable' : 'notice') : required ? 'drift' : 'notice',
          ...about,
        },
      ];
    }
    const missing = r.status === 'missing';
    return [
      {
        code: missing ? 'SIGNATURE_MISSING' : 'SIGNATURE_INVALID',
        message: `${r.artifact}: ${image} (${r.of}) ${missing ? 'is not signed' : 'is wrongly signed'}: ${r.reason}`,
        fix: missing
          ? `deploy a signed release (release promote --channel rc signs); or sign these bytes if you trust them: release sign ${r.repository}@${r.digest}`
          : `do not trust ${image} until you know who attached that signature; deploy a release signed by key ${r.keyId.slice(0, 16)}`,
        severity: required ? 'drift' : 'notice',
        ...about,
      },
    ];
  });
}
