/**
 * The checks a `release verify` can run: a summary's policy names those it required, and a caller
 * of `--vsa` those it needs. A leaf (no imports), so the command line can list them without
 * loading the evidence code.
 */
export const VSA_CHECKS = [
  'in-step',
  'signature',
  'sbom',
  'provenance',
  'release-set',
  'rc-restamp',
] as const;
export type VsaCheck = (typeof VSA_CHECKS)[number];
