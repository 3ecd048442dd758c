import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pages, ROOT } from './doc-pages.ts';

// README.md and docs/ read on their own, as an installed package or a fresh clone has them:
// nothing points outside the repository, and no paragraph starts twice or stops mid-sentence
// (build.md once had two "Engines." paragraphs, one cut off, from the notes it is generated from).

/** Prose paragraphs: blank-line separated, outside code blocks, not headings, tables, lists or quotes. */
function paragraphs(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '\n').replace(/<!--[\s\S]*?-->/g, '\n');
  return prose
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p && !/^(#|\||[-*+] |\d+\. |>)/.test(p));
}

/** Why a paragraph reads wrong, or nothing. */
function paragraphProblem(paragraph: string): string | undefined {
  const leads = [...paragraph.matchAll(/\*\*([^*\n]{1,60}?)\.\*\*/g)].map((m) => m[1]);
  const twice = leads.find((lead, i) => leads.indexOf(lead) !== i);
  if (twice) return `"**${twice}.**" starts it twice`;
  const last = paragraph.trimEnd().at(-1)!;
  if (!/[.:!?)`|*_>\]]/.test(last)) return `it stops mid-sentence ("…${paragraph.slice(-40)}")`;
  return undefined;
}

describe('the docs stand alone', () => {
  it('nothing in README.md or docs/ points outside the repository', () => {
    const outside: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(page, 'utf8');
      for (const [target] of text.matchAll(/(?:\.\.\/)+[\w.-]+(?:\/[\w.-]+)*/g)) {
        if (!resolve(dirname(page), target).startsWith(ROOT))
          outside.push(`${relative(ROOT, page)}: ${target}`);
      }
      for (const [path] of text.matchAll(/\/work\/[\w./-]+|\bshared\/(?:spec|DESIGN)[\w./-]*/g))
        outside.push(`${relative(ROOT, page)}: ${path}`);
    }
    expect(outside).toEqual([]);
  });

  it('no paragraph starts twice or stops mid-sentence', () => {
    const problems: string[] = [];
    for (const page of pages())
      for (const paragraph of paragraphs(readFileSync(page, 'utf8'))) {
        const problem = paragraphProblem(paragraph);
        if (problem) problems.push(`${relative(ROOT, page)}: ${problem}`);
      }
    expect(problems).toEqual([]);
  });

  it('the check catches what it is for', () => {
    expect(
      paragraphProblem(
        '**Engines.** One.\n**Engines.** (Two.) Three, the config of the base with the environment, command,',
      ),
    ).toBe('"**Engines.**" starts it twice');
    expect(paragraphProblem('the config of the base with the environment, command,')).toMatch(
      /stops mid-sentence/,
    );
    expect(paragraphProblem('A whole sentence.')).toBeUndefined();
  });
});
