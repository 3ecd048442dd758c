import { InternalError } from '../errors.ts';

/**
 * Check an SBOM against the CycloneDX 1.6 JSON schema with the library's own strict validator
 * (ajv), loaded on first use. A failure is our bug, never the user's: nothing invalid is written.
 */
export async function validateSbom(sbom: string, artifact: string): Promise<void> {
  const { default: CycloneDX } = await import('@cyclonedx/cyclonedx-library');
  const validator = new CycloneDX.Validation.JsonStrictValidator(CycloneDX.Spec.Version.v1dot6);
  const errors = await validator.validate(sbom);
  if (errors !== null) {
    throw new InternalError(
      'SBOM_INVALID',
      `${artifact}: the SBOM made does not validate against CycloneDX 1.6: ${JSON.stringify(errors).slice(0, 400)}`,
    );
  }
}
