import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pages, ROOT } from './doc-pages.ts';

/** Markdown links `[text](target)` outside code blocks and code spans. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces as dashes. */
function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set(
    [...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('documentation links', () => {
  it('README.md is at most 200 lines and starts with the two commands', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(firstBlock).toContain('npm ci && npm run rehearse');
    expect(firstBlock).toContain('npm test');
  });

  it('every relative link in README.md and docs/ resolves, anchors included', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages()) {
      const text = readFileSync(page, 'utf8');
      for (const target of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        checked++;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
        const where = `${relative(ROOT, page)}: ${target}`;
        if (!existsSync(file)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
          broken.push(`${where} (no heading #${anchor})`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  });

  it('links every docs page from README.md or docs/README.md, directly or through the command index', () => {
    const linked = new Set<string>();
    for (const page of [
      join(ROOT, 'README.md'),
      join(ROOT, 'docs/README.md'),
      join(ROOT, 'docs/reference/commands/README.md'),
    ]) {
      for (const target of links(readFileSync(page, 'utf8'))) {
        if (!/^[a-z]+:/i.test(target)) linked.add(join(dirname(page), target.split('#')[0]!));
      }
    }
    const orphans = pages()
      .filter((p) => !p.endsWith('README.md') && !p.endsWith('.notes.md'))
      .filter((p) => !linked.has(p))
      .map((p) => relative(ROOT, p));
    expect(orphans).toEqual([]);
  });
});
