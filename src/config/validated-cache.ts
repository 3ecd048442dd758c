import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ReleaseConfig } from './schema.ts';

/**
 * What the release bundle knows at build time (scripts/build.mjs defines both; anywhere else, a
 * test run from the sources or the per-module library, they are not defined and nothing here is
 * used): an identity of the config schema (a hash of src/config and the package version), and
 * the validated defaults, the configuration of a project without a config file.
 */
declare const __SERVICE_RELEASE_SCHEMA_ID__: string | undefined;
declare const __SERVICE_RELEASE_DEFAULT_CONFIG__: string | undefined;

/** The schema identity this code was built with, or undefined when it was not built (sources). */
export function builtSchemaId(): string | undefined {
  return typeof __SERVICE_RELEASE_SCHEMA_ID__ === 'string' ? __SERVICE_RELEASE_SCHEMA_ID__ : undefined;
}

/** The defaults as validated at build time, or undefined when not built. */
export function builtDefaults(): ReleaseConfig | undefined {
  return typeof __SERVICE_RELEASE_DEFAULT_CONFIG__ === 'string'
    ? (JSON.parse(__SERVICE_RELEASE_DEFAULT_CONFIG__) as ReleaseConfig)
    : undefined;
}

/**
 * A config the validator has accepted, kept by the hash of the raw value and of the schema that
 * accepted it: the next run with the same config skips the validator, whose library (zod) costs
 * `release stamp` more to load than all the rest of its work. Only plain JSON is kept, in and
 * out (a `.ts` config may hold functions, `undefined`, dates: those are validated every time),
 * and only what was accepted: an invalid config is always reported by the validator itself.
 * Beside the compiled `.ts` configs, in the nearest node_modules/.cache.
 */
export interface ValidatedCache {
  get(raw: unknown): ReleaseConfig | undefined;
  put(raw: unknown, config: ReleaseConfig): Promise<void>;
}

export function validatedCache(dir: string, schemaId: string): ValidatedCache {
  const pathOf = (raw: unknown): string | undefined => {
    const text = plainJson(raw);
    return text === undefined
      ? undefined
      : join(dir, `${createHash('sha256').update(schemaId).update('\0').update(text).digest('hex')}.json`);
  };
  return {
    get(raw) {
      const path = pathOf(raw);
      if (!path) return undefined;
      try {
        return JSON.parse(readFileSync(path, 'utf8')) as ReleaseConfig;
      } catch {
        return undefined; // not kept yet, or unreadable: validate
      }
    },
    async put(raw, config) {
      const path = pathOf(raw);
      const text = plainJson(config);
      if (!path || text === undefined) return;
      const { writeFileAtomically } = await import('../files/atomic-write.ts');
      await writeFileAtomically(path, `${text}\n`);
    },
  };
}

/** The value as JSON when JSON holds it exactly (what is read back is what was written), else undefined. */
export function plainJson(value: unknown): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined; // a cycle, a BigInt
  }
  return text !== undefined && isDeepStrictEqual(JSON.parse(text), value) ? text : undefined;
}
