import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './doc-pages.ts';

// docs/kubernetes.md says what a third deployment engine costs: the files it adds and the few it
// edits. This holds both lists to the tree, so the page cannot promise "one line" while a new
// engine would in fact edit a dozen files: each file it adds sits in a folder that exists (or in an
// engine folder of its own, beside Swarm's or Compose's), each file it edits exists, and the files
// that list today's engines are exactly the registries it edits.
const page = readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8');

function section(title: string): string {
  const start = page.indexOf(`## ${title}`);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end);
}

/** The first cell of each table row: its `src/…` paths, a bare file name beside one in its folder. */
function tablePaths(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const cell = /^\| ([^|]+) \|/.exec(line)?.[1];
    if (!cell) continue;
    let folder = '';
    for (const [, name] of cell.matchAll(/`([^`]+)`/g)) {
      if (name!.includes('/')) {
        out.push(name!);
        folder = dirname(name!);
      } else if (folder && /\.ts$/.test(name!)) out.push(`${folder}/${name}`);
    }
  }
  return out.filter((p) => p.startsWith('src/'));
}

const added = tablePaths(section('The files a Kubernetes engine adds'));
const edited = tablePaths(section('The files it edits'));

/** Files of src/ (not tests) that name both of today's engines' entries or readers. */
function registries(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
    );
  return walk('src').filter((file) => {
    if (file.endsWith('.test.ts')) return false;
    const text = readFileSync(join(ROOT, file), 'utf8');
    return /\bcomposeEntry\b/.test(text) && /\b(?:swarmEntry|dockerEntry)\b/.test(text);
  });
}

describe('docs/kubernetes.md: the files a third deployment engine adds and edits', () => {
  it("adds files only, each in a folder that exists or in an engine folder beside Compose's", () => {
    expect(added.length).toBeGreaterThan(10);
    for (const file of added) {
      expect(existsSync(join(ROOT, file)), `${file} already exists`).toBe(false);
      const folder = dirname(file);
      const beside = folder.replace(/\/kubernetes(\/|$)/, '/compose$1');
      expect(existsSync(join(ROOT, folder)) || existsSync(join(ROOT, beside)), `${file}: no ${beside}`).toBe(
        true,
      );
    }
    // Every layer of an engine gets its files: the adapter, the pure rules, upgrade's steps, verify's
    // reader and verify's entry.
    for (const folder of [
      'src/deployment-engines/kubernetes/',
      'src/upgrade/kubernetes/',
      'src/commands/upgrade/kubernetes/',
      'src/verify/engines/',
      'src/deployment-targets/',
    ])
      expect(
        added.some((f) => f.startsWith(folder)),
        folder,
      ).toBe(true);
  });

  it("edits files that exist, and among them every registry that names today's engines", () => {
    expect(edited).toEqual([
      'src/commands/upgrade/engines.ts',
      'src/deployment-targets/deployment-engines.ts',
      'src/config/schema.ts',
    ]);
    for (const file of edited) expect(existsSync(join(ROOT, file)), file).toBe(true);
    expect(registries().sort()).toEqual([
      'src/commands/upgrade/engines.ts',
      'src/deployment-targets/deployment-engines.ts',
    ]);
  });
});
