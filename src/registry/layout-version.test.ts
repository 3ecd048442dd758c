import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FlatLayoutStore } from './flat-layout-store.ts';
import { LayoutStore } from './layout-store.ts';

const root = mkdtempSync(join(tmpdir(), 'sr-layout-version-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const refused = expect.objectContaining({ code: 'LAYOUT_VERSION_UNKNOWN', exitCode: 1 });

describe('an OCI layout of a version the toolkit does not read', () => {
  it.each([
    ['{"imageLayoutVersion": 7}', false],
    ['{"imageLayoutVersion": "2.0.0"}', false],
    ['{"imageLayoutVersion": "1.0.0-x"}', false],
    ['{}', false],
    ['null', false],
    [`{"imageLayoutVersion": "1.0.0", "pad": "${'x'.repeat(5000)}"}`, false],
    ['{"imageLayoutVersion": "1.0.0"}', true],
    ['{"imageLayoutVersion": "1.1.0"}', true],
  ])('%s: the store opens it: %s', async (text, opens) => {
    const flat = mkdtempSync(join(root, 'flat-'));
    writeFileSync(join(flat, 'oci-layout'), text);
    const open = FlatLayoutStore.open(flat);
    if (opens) await expect(open).resolves.toBeInstanceOf(FlatLayoutStore);
    else await expect(open).rejects.toThrow(refused);

    const stores = mkdtempSync(join(root, 'layouts-'));
    mkdirSync(join(stores, 'acme-api'));
    writeFileSync(join(stores, 'acme-api', 'oci-layout'), text);
    const tags = new LayoutStore(stores).listTags('acme-api');
    if (opens) await expect(tags).resolves.toEqual([]);
    else await expect(tags).rejects.toThrow(refused);
  });

  it('a layout not started yet (no oci-layout) is no refusal', async () => {
    await expect(new LayoutStore(mkdtempSync(join(root, 'empty-'))).listTags('acme-api')).resolves.toEqual(
      [],
    );
  });
});
