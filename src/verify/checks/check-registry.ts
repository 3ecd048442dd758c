import type { Finding, RegistryReading } from '../types.ts';

/**
 * The bytes that run must be the bytes the release tag names: a running digest other than the
 * tag's means the tag moved after the deployment, or the engine runs a stale or local image. For a
 * multi-platform index, the digest of any of its platform images is the tag's too.
 */
export function checkRegistry(readings: RegistryReading[]): Finding[] {
  // The roles of one image share its tag: a tag that is missing or unreadable is said once per
  // artifact (a finding without a source marks every row of it), not once per role.
  const said = new Set<string>();
  return readings.flatMap((r): Finding[] => {
    const ref = `${r.repository}:${r.tag}`;
    const label = r.role ? `${r.artifact} ${r.role}` : r.artifact;
    if (r.expected === undefined) {
      const key = `${r.artifact}\0${r.repository}`;
      if (said.has(key)) return [];
      said.add(key);
    }
    if (r.error !== undefined) {
      return [
        {
          code: 'REGISTRY_UNREACHABLE',
          message: `${label}: could not read ${ref} from ${r.store}: ${r.error}`,
          fix: 'check the registry address (--registry or `registry` in the config) and its credentials (docker login)',
          severity: 'unreachable',
          artifact: r.artifact,
        },
      ];
    }
    if (r.expected === undefined) {
      return [
        {
          code: 'REGISTRY_TAG_MISSING',
          message: `${label}: ${ref} is not in ${r.store}, so what runs cannot be matched to a released image`,
          fix: `publish ${ref} (release build --push, then release promote), or check --expect`,
          severity: 'drift',
          artifact: r.artifact,
        },
      ];
    }
    return r.running.flatMap((running): Finding[] => {
      if (running.digest === undefined) {
        return [
          {
            code: 'REGISTRY_DIGEST_UNKNOWN',
            message: `${label}: ${running.source} runs an image the engine has no registry digest for (built or loaded locally?)`,
            fix: `deploy ${ref} by pulling it from ${r.store}`,
            severity: 'notice',
            artifact: r.artifact,
            source: running.source,
          },
        ];
      }
      if (running.digest === r.expected) return [];
      // A node pulls its own platform's image out of a multi-platform index: those bytes are the tag's too.
      if (r.platforms?.some((p) => p.digest === running.digest)) return [];
      return [
        {
          code: 'REGISTRY_DIGEST_MISMATCH',
          message: `${label}: ${running.source} runs ${running.digest}, but ${ref} in ${r.store} is ${r.expected}: the tag moved after this was deployed, or a stale image runs`,
          fix: `redeploy ${r.role ?? r.artifact} from ${ref}@${r.expected} (pull by digest), or find out why the tag moved`,
          severity: 'drift',
          artifact: r.artifact,
          source: running.source,
        },
      ];
    });
  });
}
