import { createRequire } from 'node:module';
import { join } from 'node:path';
import { InternalError } from '../errors.ts';
import { packageRoot } from '../files/package-root.ts';
import { PRECOMPILED_SBOM_VALIDATOR, sbomValidatorMadeFrom } from './sbom-validator-code.ts';

type Validator = { validate(data: string): Promise<unknown> };

/** One validator per process: compiling the schema costs far more than checking an SBOM with it. */
let validator: Promise<Validator> | undefined;

/**
 * Check an SBOM against the CycloneDX 1.6 JSON schema with the library's own strict validator
 * (ajv): the schema as `scripts/build.mjs` compiled it ahead of time (sbom-validator-code.ts),
 * else compiled here once, on first use, by the library. A failure is our bug, never the user's:
 * nothing invalid is written.
 */
export async function validateSbom(sbom: string, artifact: string): Promise<void> {
  const errors = await (await loadValidator()).validate(sbom);
  if (errors !== null) {
    throw new InternalError(
      'SBOM_INVALID',
      `${artifact}: the SBOM made does not validate against CycloneDX 1.6: ${JSON.stringify(errors).slice(0, 400)}`,
    );
  }
}

/**
 * Compile the schema now (by checking an empty SBOM), so a build can do it while its build
 * commands run in other processes rather than after them, on its critical path.
 */
export async function prepareSbomValidator(): Promise<void> {
  await (await loadValidator()).validate('{"bomFormat":"CycloneDX","specVersion":"1.6","version":1}');
}

function loadValidator(): Promise<Validator> {
  validator ??= Promise.resolve().then(() => precompiledValidator() ?? libraryValidator());
  return validator;
}

type CompiledSchema = ((data: unknown) => boolean) & { errors?: unknown[] | null; madeFrom?: string };

/**
 * The schema compiled at build time, when lib/ holds it and it was made from the packages
 * installed now (a checkout never built, or run from src/ after an upgrade, compiles instead).
 */
function precompiledValidator(): Validator | undefined {
  let compiled: CompiledSchema;
  try {
    compiled = createRequire(import.meta.url)(join(packageRoot(), 'lib', PRECOMPILED_SBOM_VALIDATOR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  if (compiled.madeFrom !== sbomValidatorMadeFrom()) return undefined;
  return {
    // As the library's validator answers: null when valid, else ajv's errors.
    validate: async (data) => (compiled(JSON.parse(data)) ? null : compiled.errors),
  };
}

function libraryValidator(): Promise<Validator> {
  return import('@cyclonedx/cyclonedx-library').then((library) => {
    // The library is CommonJS: Node and the bundle hand it over as `default`, tsx (which runs the
    // benchmarks' in-process builds) as its named exports only.
    const CycloneDX = library.default ?? library;
    return new CycloneDX.Validation.JsonStrictValidator(CycloneDX.Spec.Version.v1dot6);
  });
}
