import * as z from 'zod';
import { DEFAULT_SKEW_POLICY, type SkewPolicy } from '../version/skew.ts';

// `skew:` in release.config: how far web and CLI may be from the API before verify and watch warn
// or call it drift. Every key is optional; what is left out keeps the default (equal, as before).

const grade = z.enum(['ok', 'warn', 'drift']);
const count = z.int().min(0).max(1000);

const window = (defaults: SkewPolicy['web']) =>
  z
    .strictObject({
      /** Minor versions apart that are still fine (any patch within them). */
      minor: count.default(defaults.minor),
      /** Patch versions apart within the same minor that are still fine. */
      patch: count.default(defaults.patch),
      /** Further apart than that: a warning or drift. */
      beyond: z.enum(['warn', 'drift']).default(defaults.beyond),
    })
    .default(defaults);

export const skewSchema = z
  .strictObject({
    /** Web behind the API (ahead is always drift). */
    web: window(DEFAULT_SKEW_POLICY.web),
    /** The operator's CLI behind or ahead, once at or above min_cli_version. */
    cli: window(DEFAULT_SKEW_POLICY.cli),
    /** A development build (describe, hash, dirty, prerelease) that differs. */
    dev: grade.default(DEFAULT_SKEW_POLICY.dev),
    /** A version that is `unknown` or not a version. */
    unknown: grade.default(DEFAULT_SKEW_POLICY.unknown),
  })
  .default(DEFAULT_SKEW_POLICY);
