import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOOLKIT_ROOT } from '../fixtures/fixture-project.ts';

// dist-action/index.js is committed (a runner installs no dependencies of an Action): it must be
// what `npm run build:action` makes from src/action/ now, byte for byte.
describe('the Action bundle', () => {
  it('is current: rebuilding it gives the committed bytes', async () => {
    const { actionBundle, ACTION_BUNDLE } = (await import(
      pathToFileURL(join(TOOLKIT_ROOT, 'scripts/build-action.mjs')).href
    )) as { actionBundle: () => Promise<Uint8Array>; ACTION_BUNDLE: string };
    const built = Buffer.from(await actionBundle());
    const committed = readFileSync(join(TOOLKIT_ROOT, ACTION_BUNDLE));
    expect(
      built.equals(committed),
      'dist-action/index.js is stale: run `npm run build:action` and commit it',
    ).toBe(true);
    // Node built-ins only: nothing a runner would have to install.
    expect(committed.toString('utf8')).not.toMatch(/from\s*["'](?!node:)[^"'.][^"']*["']/);
  });
});
