import type { ArtifactConfig } from './artifacts-schema.ts';

/**
 * Cross-field rules over the parsed artifacts, as `path: message`: a role taken twice, two
 * artifacts pushing to one image, `cliArchive` where no API serves it.
 */
export function artifactRuleProblems(artifacts: Record<string, ArtifactConfig>): string[] {
  const problems: string[] = [];
  const byRole = new Map<string, string>();
  const byImage = new Map<string, string>();
  for (const artifact of Object.values(artifacts)) {
    const at = `artifacts.${artifact.name}`;
    if (artifact.role) {
      const first = byRole.get(artifact.role);
      if (first)
        problems.push(`${at}.role: the role "${artifact.role}" is already taken by artifacts.${first}`);
      else byRole.set(artifact.role, artifact.name);
    }
    if (artifact.kind !== 'image') continue;
    const first = byImage.get(artifact.image);
    if (first) problems.push(`${at}.image: "${artifact.image}" is already the image of artifacts.${first}`);
    else byImage.set(artifact.image, artifact.name);
    if (artifact.cliArchive !== undefined && artifact.role !== 'api')
      problems.push(`${at}.cliArchive: only the api artifact serves the CLI archive`);
    if (artifact.minCliVersion !== undefined && artifact.role !== 'api')
      problems.push(`${at}.minCliVersion: only the api artifact serves a min_cli_version`);
  }
  return problems;
}
