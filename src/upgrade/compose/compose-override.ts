/**
 * The override file `release upgrade --compose` writes instead of editing the user's files: one
 * `image:` per service, pinned to `repo:tag@digest`, applied after the user's files (`-f` order),
 * so Compose merges it over them and nothing else of their definition changes.
 *
 * `version` is the user's first file's: Compose v1 refuses to merge files of different versions.
 * Strings are written JSON-quoted, which YAML reads as double-quoted scalars.
 */
export function renderOverride(input: {
  tag: string;
  pins: Record<string, string>;
  version?: string | undefined;
}): string {
  const lines = [
    `# Written by \`release upgrade --to ${input.tag}\` (service-release): pins each upgraded`,
    '# service to its release digest. Not yours to edit: the next upgrade rewrites it, a rollback',
    "# puts the previous one back. Delete it to go back to your compose files' own images.",
  ];
  if (input.version !== undefined) lines.push(`version: ${JSON.stringify(input.version)}`);
  lines.push('services:');
  for (const [service, image] of Object.entries(input.pins).sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`  ${JSON.stringify(service)}:`, `    image: ${JSON.stringify(image)}`);
  }
  return `${lines.join('\n')}\n`;
}
