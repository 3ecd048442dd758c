import { type Document, isMap, isScalar, Scalar, stringify } from 'yaml';
import { InternalError } from '../errors.ts';
import { readYaml } from '../text/parse-yaml.ts';
import type { Place } from './gitops-types.ts';

/** One changed line (or an added one: `before` empty), for `--dry-run`'s diff. */
export interface Hunk {
  line: number;
  before: string[];
  after: string[];
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * Write `edits` into a file's text through the `yaml` Document API, changing only the bytes of
 * each edited value. The Document finds every node and its exact source range; we splice a new
 * scalar into that range in the scalar's own style (plain, single or double quoted) and leave the
 * rest of the text as it was. Re-serialising the whole Document (`String(doc)`) would also keep
 * comments and order, but re-folds long lines and re-indents sequences in real charts (authentik's
 * Chart.yaml description, mattermost's `keywords:`), and the change must be exactly the release.
 */
export function applyEdits(text: string, edits: Place[]): { text: string; hunks: Hunk[] } {
  const docs = readYaml(text).documents;
  const splices = edits.map((edit) => spliceFor(text, docs[edit.doc], edit));
  splices.sort((a, b) => b.start - a.start);
  let out = text;
  for (const s of splices) out = out.slice(0, s.start) + s.text + out.slice(s.end);
  check(out, edits);
  return { text: out, hunks: lineDiff(text, out) };
}

function spliceFor(text: string, doc: Document | undefined, edit: Place): Splice {
  const node = doc?.getIn(edit.path, true);
  if (isScalar(node) && node.range) {
    const [start, end] = node.range;
    const value = render(node, edit.want);
    if (start !== end) return { start, end, text: value };
    // An empty value (`tag:`, `tag:  # why`) has no bytes of its own, and the parser places it
    // where the next token starts (the comment): the new one goes right after the colon.
    const colon = text.lastIndexOf(':', start - 1) + 1;
    return { start: colon, end: colon, text: ` ${value}` };
  }
  const parent = doc?.getIn(edit.path.slice(0, -1), true);
  if (node === undefined && isMap(parent) && !parent.flow && parent.range && parent.items.length) {
    // A key the entry lacks (a kustomization image without `newTag`): a new line at its indent.
    const first = parent.items[0]!.key as Scalar;
    const start = first.range![0];
    const indent = start - text.lastIndexOf('\n', start - 1) - 1;
    const at = parent.range[1];
    const line = `${' '.repeat(indent)}${String(edit.path.at(-1))}: ${render(new Scalar(null), edit.want)}`;
    return text[at - 1] === '\n'
      ? { start: at, end: at, text: `${line}\n` }
      : { start: at, end: at, text: `\n${line}` };
  }
  throw new InternalError('BUMP_EDIT_UNPLACEABLE', `cannot write ${edit.path.join('.')} in ${edit.file}`);
}

/** The new value in the old one's style; a plain scalar is quoted only where YAML needs it. */
function render(old: Scalar, value: string): string {
  if (old.type === Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  if (old.type === Scalar.QUOTE_SINGLE) return `'${value.replaceAll("'", "''")}'`;
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

/** Read the result back: every edited key holds exactly its new value, or it is our bug. */
function check(text: string, edits: Place[]): void {
  const read = readYaml(text);
  for (const edit of edits) {
    const got = read.documents[edit.doc]?.getIn(edit.path);
    if (String(got) !== edit.want || read.problem)
      throw new InternalError(
        'BUMP_EDIT_MISREAD',
        `${edit.file} ${edit.path.join('.')} reads ${String(got)} after the edit`,
      );
  }
}

/** The changed lines: edits replace a value within its line or add one line. */
function lineDiff(before: string, after: string): Hunk[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
    } else if (a[i] === b[j + 1]) {
      hunks.push({ line: i + 1, before: [], after: [b[j]!] });
      j++;
    } else {
      hunks.push({
        line: i + 1,
        before: a[i] === undefined ? [] : [a[i]!],
        after: b[j] === undefined ? [] : [b[j]!],
      });
      i++;
      j++;
    }
  }
  return hunks;
}
