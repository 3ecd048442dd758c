import { describe, expect, it } from 'vitest';
import { codeFiles } from './archive-code-files.ts';

describe('codeFiles', () => {
  it('finds nothing to run in an sdist of metadata, and the code in a real one', () => {
    const empty = [
      'acme-0.1/PKG-INFO',
      'acme-0.1/pyproject.toml',
      'acme-0.1/setup.cfg',
      'acme-0.1/README.md',
      'acme-0.1/acme.egg-info/SOURCES.txt',
      'acme-0.1/.gitignore',
    ];
    expect(codeFiles(empty)).toEqual([]);
    expect(codeFiles([...empty, 'acme-0.1/acme/cli.py'])).toEqual(['acme-0.1/acme/cli.py']);
    expect(codeFiles(['package/package.json', 'package/LICENSE', 'package/bin/acme.js'])).toEqual([
      'package/bin/acme.js',
    ]);
    expect(codeFiles(['acme'])).toEqual(['acme']); // a compiled binary has no extension
  });
});
