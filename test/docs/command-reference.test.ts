import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandReferencePages, REFERENCE_DIR } from '../../scripts/command-reference.ts';
import { CONFIG_KEYS_PAGE, configKeysPage } from '../../scripts/config-reference.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the generated command reference', () => {
  const pages = commandReferencePages(ROOT);

  it('is current: every page equals what `npm run docs:reference` writes now', () => {
    const stale = [...pages]
      .filter(
        ([path, text]) => !existsSync(join(ROOT, path)) || readFileSync(join(ROOT, path), 'utf8') !== text,
      )
      .map(([path]) => path);
    expect(stale, 'run `npm run docs:reference` and commit the pages').toEqual([]);
  });

  it('has no page for a command that no longer exists', () => {
    const onDisk = readdirSync(join(ROOT, REFERENCE_DIR))
      .filter((name) => name.endsWith('.md') && !name.endsWith('.notes.md'))
      .map((name) => `${REFERENCE_DIR}/${name}`);
    expect(onDisk.sort()).toEqual([...pages.keys()].sort());
  });

  it('the config keys page is current too', () => {
    const path = join(ROOT, CONFIG_KEYS_PAGE);
    expect(
      existsSync(path) && readFileSync(path, 'utf8') === configKeysPage(),
      'run `npm run docs:reference`',
    ).toBe(true);
    expect(configKeysPage()).toContain('| `artifacts.<image>.entrypoint` | array of string |');
  });

  it('lists each command with its flags, defaults and choices from the definitions', () => {
    const stamp = pages.get(`${REFERENCE_DIR}/stamp.md`)!;
    expect(stamp).toContain('| `--channel <channel>` |');
    expect(stamp).toMatch(/`dev`, `rc`, `release`/);
    expect(pages.get(`${REFERENCE_DIR}/README.md`)).toContain('| 2 | usage or configuration error');
  });
});
