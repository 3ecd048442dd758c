import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import CycloneDX from '@cyclonedx/cyclonedx-library';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../files/package-root.ts';
import { sbomOf } from './sbom.ts';
import {
  PRECOMPILED_SBOM_VALIDATOR,
  sbomValidatorCode,
  sbomValidatorMadeFrom,
} from './sbom-validator-code.ts';
import { validateSbom } from './validate-sbom.ts';

type Compiled = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; keyword: string }[] | null;
};

/** The generated module, run as Node would run the file (its requires resolved from here). */
function load(code: string): Compiled & { madeFrom?: string } {
  const module = { exports: {} as Compiled };
  new Function('require', 'module', 'exports', code)(createRequire(import.meta.url), module, module.exports);
  return module.exports;
}

const sbom = JSON.parse(
  sbomOf(
    {
      repository: 'acme-api',
      digest: `sha256:${'1'.repeat(64)}`,
      version: 'v1.2.0-rc.1',
      base: { reference: 'node:20', digest: `sha256:${'2'.repeat(64)}` },
      files: [{ path: '/app/main.mjs', sha256: '3'.repeat(64) }],
      packages: [
        {
          name: 'left-pad',
          version: '1.3.0',
          license: 'WTFPL',
          path: '/app/node_modules/left-pad/package.json',
        },
      ],
    },
    { name: 'service-release', version: '0.1.0' },
  ),
);

/** Each case changes a copy of a real SBOM of ours; each format the schema names is in one. */
// biome-ignore lint/suspicious/noExplicitAny: each case reaches into the SBOM's JSON
const CASES: [string, (bom: Record<string, any>) => void][] = [
  ['as made', () => {}],
  ['no bomFormat', (b) => delete b.bomFormat],
  ['another specVersion', (b) => (b.specVersion = '2.0')],
  ['a property the strict schema does not know', (b) => (b.extra = true)],
  ['a timestamp that is a date-time', (b) => (b.metadata.timestamp = '2026-01-01T00:00:00Z')],
  ['a timestamp that is not a date-time (format)', (b) => (b.metadata.timestamp = 'yesterday')],
  [
    'a contact with an email (idn-email)',
    (b) => (b.metadata.authors = [{ name: 'A', email: 'a@example.com' }]),
  ],
  [
    'a contact with no email in its email (idn-email)',
    (b) => (b.metadata.authors = [{ name: 'A', email: 'not mail' }]),
  ],
  [
    'a reference url (iri-reference)',
    (b) => (b.externalReferences = [{ type: 'website', url: 'https://example.com/x' }]),
  ],
  [
    'a reference that is any text (iri-reference is not checked)',
    (b) => (b.externalReferences = [{ type: 'website', url: ':: x' }]),
  ],
  ['an unknown hash algorithm', (b) => (b.components[0].hashes = [{ alg: 'MD6', content: 'ab' }])],
  ['a hash that is not hex', (b) => (b.components[0].hashes = [{ alg: 'SHA-256', content: 'zz' }])],
  [
    'an SPDX licence id that does not exist',
    (b) => (b.components[0].licenses = [{ license: { id: 'NOT-A-LICENCE' } }]),
  ],
  ['a component of an unknown type', (b) => (b.components[0].type = 'gadget')],
];

describe('the CycloneDX schema compiled ahead of time', () => {
  let compiled: Compiled;
  let library: { validate(data: string): Promise<unknown> };
  beforeAll(async () => {
    compiled = load(await sbomValidatorCode());
    library = new CycloneDX.Validation.JsonStrictValidator(CycloneDX.Spec.Version.v1dot6);
  });

  it('answers every case as the library’s own strict validator does, errors included', async () => {
    const outcomes: Record<string, boolean> = {};
    for (const [name, change] of CASES) {
      const bom = structuredClone(sbom);
      change(bom);
      const text = JSON.stringify(bom);
      const theirs = (await library.validate(text)) as Compiled['errors'];
      const valid = compiled(JSON.parse(text));
      const ours = valid ? null : compiled.errors;
      expect({ name, ours }).toEqual({ name, ours: theirs });
      outcomes[name] = valid;
    }
    // The matrix holds both answers, for each kind of rule: a matrix that passes everything proves nothing.
    expect(outcomes).toMatchObject({
      'as made': true,
      'no bomFormat': false,
      'a property the strict schema does not know': false,
      'a timestamp that is not a date-time (format)': false,
      'a contact with no email in its email (idn-email)': false,
      'a contact with an email (idn-email)': true,
      'a reference that is any text (iri-reference is not checked)': true,
      'an SPDX licence id that does not exist': false,
    });
  });

  it('the build wrote it into lib/ under the packages installed, and validateSbom refuses an invalid SBOM', async () => {
    // The test run compiles lib/ first (test/helpers/global-setup.ts), as `npm run rehearse` does.
    const file = join(packageRoot(), 'lib', PRECOMPILED_SBOM_VALIDATOR);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toContain(sbomValidatorMadeFrom());
    expect(createRequire(import.meta.url)(file).madeFrom).toBe(sbomValidatorMadeFrom());
    await expect(validateSbom(JSON.stringify(sbom), 'api')).resolves.toBeUndefined();
    await expect(validateSbom(JSON.stringify({ ...sbom, extra: true }), 'api')).rejects.toMatchObject({
      code: 'SBOM_INVALID',
    });
  });
});
