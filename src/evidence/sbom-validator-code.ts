import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The CycloneDX 1.6 strict JSON schema compiled by ajv into a CommonJS module (ajv's standalone
 * code), written by `scripts/build.mjs` beside the compiled toolkit: compiling the schema costs
 * ~1 s of CPU in every build, checking an SBOM with it a few milliseconds.
 *
 * Made exactly as @cyclonedx/cyclonedx-library's own strict validator makes its ajv instance
 * (its `_optPlug.node/__jsonValidators/ajv.js`): the same options, the SPDX, crypto-defs and JSF
 * schemas it preloads, every ajv-formats format, `idn-email` from ajv-formats-draft2019 and
 * `iri-reference` accepted as is. The generated code requires ajv's runtime and the two format
 * packages (our own dependencies), and names the versions it was made from (SBOM_VALIDATOR_MADE_FROM):
 * validate-sbom.ts compiles with the library instead when the installed ones differ.
 */

/** Where the compiled module goes, under lib/. */
export const PRECOMPILED_SBOM_VALIDATOR = 'evidence/cyclonedx-1.6-strict-validator.cjs';

const require = createRequire(import.meta.url);

/** The packages the compiled code is made from, by their installed versions. */
export function sbomValidatorMadeFrom(): string {
  return ['@cyclonedx/cyclonedx-library', 'ajv', 'ajv-formats', 'ajv-formats-draft2019']
    .map((name) => `${name}@${(require(`${name}/package.json`) as { version: string }).version}`)
    .join(' ');
}

export async function sbomValidatorCode(): Promise<string> {
  // CommonJS packages, loaded only here (at build time), as the library itself requires them.
  const { default: Ajv, _ } = require('ajv') as typeof import('ajv');
  const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
  const addDraft2019Formats = require('ajv-formats-draft2019') as (
    ajv: InstanceType<typeof Ajv>,
    options: { formats: string[] },
  ) => unknown;
  const standaloneCode = (
    require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js')
  ).default;
  const root = join(dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res/schema');
  const json = async (name: string) => JSON.parse(await readFile(join(root, name), 'utf8')) as object;
  const [schema, spdx, cryptoDefs, jsf] = await Promise.all(
    [
      'bom-1.6.SNAPSHOT.schema.json',
      'spdx.SNAPSHOT.schema.json',
      'cryptography-defs.SNAPSHOT.schema.json',
      'jsf-0.82.SNAPSHOT.schema.json',
    ].map(json),
  );
  const ajv = new Ajv({
    useDefaults: false,
    strict: false,
    strictSchema: false,
    addUsedSchema: false,
    loadSchema: (uri: string) => {
      throw new Error(`Remote schemas are disabled: ${uri}`);
    },
    schemas: {
      'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json': spdx,
      'http://cyclonedx.org/schema/cryptography-defs.SNAPSHOT.schema.json': cryptoDefs,
      'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json': jsf,
    },
    // Every format the code checks is read from this one object, required by the module itself.
    code: {
      source: true,
      formats: _`{ ...require("ajv-formats/dist/formats").fullFormats, "idn-email": require("ajv-formats-draft2019/formats")["idn-email"] }`,
    },
  });
  addFormats(ajv);
  addDraft2019Formats(ajv, { formats: ['idn-email'] });
  ajv.addFormat('iri-reference', true);
  const validate = ajv.compile(schema!);
  const code = standaloneCode(ajv, validate);
  return `${code}\nmodule.exports.madeFrom = ${JSON.stringify(sbomValidatorMadeFrom())};\n`;
}
