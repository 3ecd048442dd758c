import type { ArtifactConfig, ImageArtifactConfig } from './artifacts-schema.ts';

/**
 * Roles several artifacts may take: a worker and a scheduler are both workers; an app and an
 * admin dashboard are both web clients, each its own image read at its own URL; a migration and
 * a seed are both jobs.
 */
const REPEATABLE_ROLES: ReadonlySet<string> = new Set(['worker', 'web', 'job']);

/**
 * Cross-field rules over the parsed artifacts, as `path: message`: a single role (api, cli)
 * taken twice, a role's undeclared default on a declared image, roles of one image that cannot be
 * told apart by their command, `cliArchive` where no API serves it.
 */
export function artifactRuleProblems(artifacts: Record<string, ArtifactConfig>): string[] {
  const problems: string[] = [];
  const byRole = new Map<string, string>();
  const byImage = new Map<string, ImageArtifactConfig[]>();
  for (const artifact of Object.values(artifacts)) {
    const at = `artifacts.${artifact.name}`;
    if (artifact.role && !REPEATABLE_ROLES.has(artifact.role)) {
      const first = byRole.get(artifact.role);
      if (first)
        problems.push(`${at}.role: the role "${artifact.role}" is already taken by artifacts.${first}`);
      else byRole.set(artifact.role, artifact.name);
    }
    if (artifact.kind !== 'image') continue;
    byImage.set(artifact.image, [...(byImage.get(artifact.image) ?? []), artifact]);
    const servesApi =
      artifact.role === 'api' ||
      Object.values(artifacts).some(
        (a) => a.kind === 'image' && a.roleOf === artifact.name && a.role === 'api',
      );
    if (artifact.cliArchive !== undefined && !servesApi)
      problems.push(`${at}.cliArchive: only the api artifact serves the CLI archive`);
    if (artifact.serveCli !== undefined && !servesApi)
      problems.push(`${at}.serveCli: only the api artifact serves the CLI archive`);
    if (artifact.serveCli === false && artifact.cliArchive !== undefined)
      problems.push(`${at}.cliArchive: set, while serveCli is false (leave one out)`);
    if (artifact.minCliVersion !== undefined && !servesApi)
      problems.push(`${at}.minCliVersion: only the api artifact serves a min_cli_version`);
  }
  for (const [image, sharing] of byImage)
    if (sharing.length > 1) problems.push(...sharedImageProblems(image, sharing));
  return problems;
}

function sharedImageProblems(image: string, sharing: ImageArtifactConfig[]): string[] {
  const problems: string[] = [];
  const declared = sharing.filter((a) => !a.implicit);
  for (const implicit of sharing.filter((a) => a.implicit)) {
    problems.push(
      `artifacts.${implicit.name}.image: "${image}" is already the image of artifacts.${declared[0]!.name} (declare ${implicit.name} with its role and command to run it from that image, or give it another image)`,
    );
  }
  const seen = new Map<string, string>();
  for (const artifact of declared) {
    const key = artifact.command ? JSON.stringify(artifact.command) : '';
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, artifact.name);
      continue;
    }
    problems.push(
      artifact.command
        ? `artifacts.${artifact.name}.command: artifacts.${first} runs "${image}" with the same command; each role of one image needs its own`
        : `artifacts.${artifact.name}.command: artifacts.${first} also runs "${image}" with its default command; give every role of one image but one the command its containers run`,
    );
  }
  return problems;
}
