import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { readYaml, readYamlValue } from './parse-yaml.ts';

const KEY = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const VALUE = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
const TREE = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    VALUE,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(KEY, tie('node'), { maxKeys: 4 }),
  ),
})).node;

describe('readYaml', () => {
  it('reads any stream of documents as the yaml package does (fast-check, 300 seeded runs)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(KEY, TREE, { minKeys: 1, maxKeys: 5 }), { minLength: 1, maxLength: 4 }),
        (docs) => {
          const text = docs.map((d) => stringify(d)).join('---\n');
          const read = readYaml(text);
          expect(read.problem).toBeUndefined();
          expect(read.duplicates).toEqual([]);
          expect(read.documents.map((d) => d.toJS())).toEqual(
            parseAllDocuments(text).map((d) => (d as { toJS(): unknown }).toJS()),
          );
        },
      ),
      { numRuns: 300, seed: 53 },
    );
  });

  it('names every key given twice with its line, at any depth, and the last one wins (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(KEY, { minLength: 2, maxLength: 6 }),
        fc.nat(),
        fc.nat(),
        (keys, pick, depth) => {
          const twice = keys[pick % keys.length]!;
          const indent = '  '.repeat(depth % 3);
          const head = Array.from({ length: depth % 3 }, (_, i) => `${'  '.repeat(i)}n${i}:\n`).join('');
          const lines = [...keys.map((k, i) => `${indent}${k}: ${i}`), `${indent}${twice}: last`];
          const read = readYaml(`${head}${lines.join('\n')}\n`);
          expect(read.problem).toBeUndefined();
          expect(read.duplicates).toEqual([{ key: twice, line: (depth % 3) + keys.length + 1 }]);
          let tree = read.documents[0]!.toJS() as Record<string, unknown>;
          for (let i = 0; i < depth % 3; i++) tree = tree[`n${i}`] as Record<string, unknown>;
          expect(tree[twice]).toBe('last');
        },
      ),
      { numRuns: 200, seed: 53 },
    );
  });

  it('stops at the first syntax error with its line, and at the caps on documents and aliases', () => {
    const broken = readYaml('a: 1\nb: [2\nc: 3\n').problem;
    expect(broken?.code).toBe('YAML_SYNTAX');
    expect([2, 3]).toContain(broken?.line);
    expect(readYaml('"x" "x" "x"\n').problem).toMatchObject({ code: 'YAML_SYNTAX', line: 1 });
    expect(readYaml('---\n'.repeat(20), { maxDocuments: 10 }).problem).toMatchObject({
      code: 'YAML_TOO_MANY_DOCUMENTS',
    });
    const aliases = `a: &a 1\n${Array.from({ length: 20 }, (_, i) => `k${i}: *a`).join('\n')}\n`;
    expect(readYaml(aliases, { maxAliases: 10 }).problem).toMatchObject({ code: 'YAML_TOO_MANY_ALIASES' });
    expect(readYaml(aliases).problem).toBeUndefined();
    // A `*` at the start of a scalar's text is not an alias.
    expect(readYaml('a: |\n  * one\n  * two\nb: "*c"\n', { maxAliases: 0 }).problem).toBeUndefined();
  });

  it('a billion laughs is a problem, not a hang', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const read = readYamlValue(levels.join('\n'));
    expect(read).toMatchObject({ problem: { code: 'YAML_TOO_MANY_ALIASES' } });
  });
});
