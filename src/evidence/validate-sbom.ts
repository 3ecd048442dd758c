import { InternalError } from '../errors.ts';

type Validator = { validate(data: string): Promise<unknown> };

/** One validator per process: compiling the schema costs far more than checking an SBOM with it. */
let validator: Promise<Validator> | undefined;

/**
 * Check an SBOM against the CycloneDX 1.6 JSON schema with the library's own strict validator
 * (ajv), loaded on first use and kept: it compiles the schema once, then each image's SBOM is
 * checked against that same compiled schema. A failure is our bug, never the user's: nothing
 * invalid is written.
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
  validator ??= import('@cyclonedx/cyclonedx-library').then((library) => {
    // The library is CommonJS: Node and the bundle hand it over as `default`, tsx (which runs the
    // benchmarks' in-process builds) as its named exports only.
    const CycloneDX = library.default ?? library;
    return new CycloneDX.Validation.JsonStrictValidator(CycloneDX.Spec.Version.v1dot6);
  });
  return validator;
}
