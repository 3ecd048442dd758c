import { readYamlValue } from '../../text/parse-yaml.ts';

/**
 * A CI file (a workflow, `.gitlab-ci.yml`, `.goreleaser.yaml`) as data, read with the limits a
 * hostile file cannot get past: at most MAX_TEXT characters, aliases expanded at most MAX_ALIASES
 * times (a "billion laughs" file is refused, not expanded). Merge keys on, as GitLab and
 * goreleaser files use them. Pure.
 */
export type YamlRead = { data: unknown } | { unreadable: string };

const MAX_ALIASES = 1000;
export const MAX_CI_TEXT = 2 * 1024 * 1024;

export function readYaml(text: string): YamlRead {
  if (text.length > MAX_CI_TEXT) return { unreadable: `over ${MAX_CI_TEXT / 1024 / 1024} MB` };
  // The toolkit's one bounded YAML reader: it stops at the first error and caps documents and aliases.
  const read = readYamlValue(text, { merge: true, maxAliases: MAX_ALIASES });
  return 'problem' in read ? { unreadable: read.problem.message.slice(0, 200) } : { data: read.value };
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A scalar as the string a CI runner sees (`true`, `8080`), or undefined for a map or a list. */
export function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A list of strings, or a single string as a list of one; other values dropped. */
export function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(scalar).filter((v): v is string => v !== undefined);
  const one = scalar(value);
  return one === undefined ? [] : [one];
}
