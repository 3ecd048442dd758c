import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFilesAtomically } from './atomic-write.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFilesAtomically', () => {
  it('writes every file and leaves no temporaries', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sr-atomic-'));
    await writeFilesAtomically([
      { path: join(dir, 'a/one.txt'), content: '1' },
      { path: join(dir, 'a/two.txt'), content: '2' },
    ]);
    expect(readFileSync(join(dir, 'a/one.txt'), 'utf8')).toBe('1');
    expect(readdirSync(join(dir, 'a')).sort()).toEqual(['one.txt', 'two.txt']);
  });

  it('puts the old set back when a later rename fails', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sr-atomic-'));
    writeFileSync(join(dir, 'one.txt'), 'old one');
    mkdirSync(join(dir, 'blocked')); // a directory where a file should go: its rename fails
    writeFileSync(join(dir, 'blocked', 'keep'), 'x');
    await expect(
      writeFilesAtomically([
        { path: join(dir, 'one.txt'), content: 'new one' },
        { path: join(dir, 'fresh.txt'), content: 'new' },
        { path: join(dir, 'blocked'), content: 'new' },
      ]),
    ).rejects.toThrow();
    expect(readFileSync(join(dir, 'one.txt'), 'utf8')).toBe('old one');
    expect(existsSync(join(dir, 'fresh.txt'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'one.txt']);
  });
});
