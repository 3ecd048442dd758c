import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { applyEdits } from './apply-edits.ts';

// Any tag the distribution grammar allows (plus a digest), written into a value in any of the
// three quoting styles beside comments and other keys: the file reads back with exactly the new
// value, and every other line is byte for byte what it was.
const TAG = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,40}(?:@sha256:[0-9a-f]{64})?$/);
const STYLE = fc.constantFrom(
  (v: string) => v,
  (v: string) => `'${v}'`,
  (v: string) => JSON.stringify(v),
  () => '',
  () => 'null',
);

describe('applyEdits (property)', () => {
  it('changes exactly the edited line and reads back the wanted value', () => {
    fc.assert(
      fc.property(TAG, TAG, STYLE, (old, want, style) => {
        const before = `# c\nother: keep # note\nimage:\n  tag: ${style(old)} # why\n  list: [a, b]\nafter: 1\n`;
        const { text } = applyEdits(before, [
          { file: 'v.yaml', doc: 0, path: ['image', 'tag'], kind: 'tag', artifacts: [], current: null, want },
        ]);
        expect(parseDocument(text).getIn(['image', 'tag'])).toBe(want);
        const a = before.split('\n');
        const b = text.split('\n');
        expect(b).toHaveLength(a.length);
        for (const i of a.keys()) if (i !== 3) expect(b[i]).toBe(a[i]);
        expect(b[3]).toMatch(/ # why$/);
      }),
      { numRuns: 500, seed: 43 },
    );
  });
});
