/**
 * What the Action reports from a run: the outputs (`version`, `channel`, `digests` as JSON) and the
 * job summary's release table, from the release record the command left (`dist/release.json`)
 * and its `--json` document. Pure.
 */
export interface RunFacts {
  command: string;
  exitCode: number;
  /** The command's `--json` document, when it printed one. */
  document?: Record<string, unknown>;
  /** The release record, when there is one. */
  record?: {
    version?: string;
    tag?: string;
    channel?: string;
    artifacts?: Record<
      string,
      { role?: string; repository?: string; references?: string[]; digest?: string }
    >;
  };
}

export interface ActionOutputs {
  version: string;
  channel: string;
  /** `{ "<artifact>": "sha256:..." }` for every image with a digest. */
  digests: string;
}

export function actionOutputs(facts: RunFacts): ActionOutputs {
  const doc = facts.document ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const digests: Record<string, string> = {};
  for (const [name, entry] of Object.entries(facts.record?.artifacts ?? {}))
    if (entry.digest) digests[name] = entry.digest;
  const images = doc['images'];
  if (images && typeof images === 'object')
    for (const [name, entry] of Object.entries(images as Record<string, { digest?: unknown }>))
      if (typeof entry?.digest === 'string') digests[name] = entry.digest;
  return {
    version: text(doc['version']) || text(facts.record?.version),
    channel: text(doc['channel']) || text(facts.record?.channel),
    digests: JSON.stringify(digests),
  };
}

/** The job summary: what ran, its outcome, and the release table. */
export function jobSummary(facts: RunFacts, outputs: ActionOutputs): string {
  const lines = [
    `### release ${facts.command}: ${facts.exitCode === 0 ? 'done' : `failed (exit ${facts.exitCode})`}`,
    '',
  ];
  if (outputs.version)
    lines.push(`Version **${cell(outputs.version)}**, channel **${cell(outputs.channel || 'none')}**.`, '');
  const digests = JSON.parse(outputs.digests) as Record<string, string>;
  const artifacts = Object.entries(facts.record?.artifacts ?? {}).filter(([, a]) => a.repository);
  if (artifacts.length) {
    lines.push('| artifact | role | image | digest |', '|---|---|---|---|');
    for (const [name, a] of artifacts) {
      const reference = a.references?.[0] ?? a.repository ?? '';
      const digest = digests[name] ?? a.digest;
      lines.push(
        `| ${cell(name)} | ${cell(a.role ?? '')} | \`${cell(reference)}\` | ${digest ? `\`${cell(digest)}\`` : 'not built'} |`,
      );
    }
    lines.push('');
  }
  const warnings = facts.document?.['warnings'];
  if (Array.isArray(warnings) && warnings.length) {
    lines.push('Warnings:', '');
    for (const w of warnings) lines.push(`- ${cell(String(w))}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/** A table cell: no pipes, backticks or newlines from outside text. */
function cell(text: string): string {
  return text.replace(/[|`\r\n]/g, ' ').slice(0, 200);
}
