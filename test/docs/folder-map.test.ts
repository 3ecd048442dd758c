import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './doc-pages.ts';

// docs/development.md's map names every folder of src/ with what lives there and what it may
// import; the folders where a new engine would go are named one level down too. A folder added,
// moved or removed without the map following fails here.
const NAMED_TO_DEPTH_TWO = ['build-engines', 'deployment-engines', 'upgrade', 'verify', 'commands/upgrade'];

const folders = (dir: string): string[] =>
  readdirSync(join(ROOT, 'src', dir)).filter((name) => statSync(join(ROOT, 'src', dir, name)).isDirectory());

/** The map's folder names: `name/` at the start of a line indented 2 (top) or 4 (below the last top). */
function mapNames(): { top: Set<string>; below: Map<string, Set<string>> } {
  const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
  const block = /## Where things live[\s\S]*?```\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  const top = new Set<string>();
  const below = new Map<string, Set<string>>();
  let parent = '';
  for (const line of block.split('\n')) {
    const match = /^( {2}| {4})(\S.*?)(?: {2,}|$)/.exec(line);
    if (!match) continue;
    const names = match[2]!
      .split(' ')
      .filter((token) => token.endsWith('/'))
      .map((token) => token.slice(0, -1));
    if (match[1]!.length === 2) {
      for (const name of names) top.add(name);
      if (names.length > 0) parent = names[0]!;
    } else {
      for (const name of names) {
        if (!below.has(parent)) below.set(parent, new Set());
        below.get(parent)!.add(name);
      }
    }
  }
  return { top, below };
}

describe("docs/development.md's folder map", () => {
  const { top, below } = mapNames();

  it('names every folder of src/, and only folders that exist', () => {
    const named = [...top].map((name) => (name.startsWith('commands/') ? 'commands' : name));
    expect(folders('').filter((dir) => !named.includes(dir))).toEqual([]);
    expect(named.filter((name) => !folders('').includes(name.split('/')[0]!))).toEqual([]);
  });

  it.each(NAMED_TO_DEPTH_TWO)('names every folder of src/%s', (parent) => {
    const children = below.get(parent) ?? new Set();
    expect(folders(parent).filter((dir) => !children.has(dir))).toEqual([]);
    expect([...children].filter((name) => !folders(parent).includes(name))).toEqual([]);
  });
});
