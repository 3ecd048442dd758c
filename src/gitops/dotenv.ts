import type { Hunk } from './apply-edits.ts';
import type { Place } from './gitops-types.ts';

// `NAME=value`, `export NAME=value`, the value bare or in one kind of quotes, a comment after.
const LINE = /^(\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s#]*))(.*)$/;

/**
 * A Compose project's `.env` (getsentry/self-hosted keeps every image there: `image:
 * "$SNUBA_IMAGE"` in the compose file, `SNUBA_IMAGE=ghcr.io/getsentry/snuba:…` beside it), read as
 * Compose reads it: one `NAME=value` a line, the last one winning.
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m) out[m[2]!] = m[3] ?? m[4] ?? m[5] ?? '';
  }
  return out;
}

/** Each name set a second (or later) time, with its 1-based line: which one counts is a trap. */
export function dotenvDuplicates(text: string): { key: string; line: number }[] {
  const seen = new Set<string>();
  const found: { key: string; line: number }[] = [];
  text.split('\n').forEach((line, i) => {
    const name = LINE.exec(line)?.[2];
    if (name === undefined) return;
    if (seen.has(name)) found.push({ key: name, line: i + 1 });
    seen.add(name);
  });
  return found;
}

/** Write each edit (path `[NAME]`) into the last line that sets it, in its own quoting. */
export function applyDotenvEdits(text: string, edits: Place[]): { text: string; hunks: Hunk[] } {
  const lines = text.split('\n');
  const hunks: Hunk[] = [];
  for (const edit of edits) {
    const name = String(edit.path[0]);
    const at = lines.findLastIndex((l) => LINE.exec(l)?.[2] === name);
    const m = at >= 0 ? LINE.exec(lines[at]!) : null;
    if (!m) continue;
    const quote = m[3] !== undefined ? '"' : m[4] !== undefined ? "'" : '';
    const next = `${m[1]}${quote}${edit.want}${quote}${m[6]}`;
    hunks.push({ line: at + 1, before: [lines[at]!], after: [next] });
    lines[at] = next;
  }
  return { text: lines.join('\n'), hunks };
}
