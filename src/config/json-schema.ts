import * as z from 'zod';
import { cliArtifactSchema, imageArtifactSchema } from './artifacts-schema.ts';
import { ARTIFACT_NAME } from './constants.ts';
import { configSchema, REGISTRY } from './schema.ts';

/** Where the package ships it, and the `$schema` line `release init --format json` writes. */
export const CONFIG_SCHEMA_FILE = 'config.schema.json';
export const CONFIG_SCHEMA_REF = `./node_modules/service-release/${CONFIG_SCHEMA_FILE}`;

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema> };

/**
 * The JSON Schema of `release.config.json`, converted from the zod schema the loader validates
 * with (zod 4's `z.toJSONSchema`, input side: what a user writes, defaults optional), so editors
 * complete and check the same keys the loader accepts. Two parts zod cannot convert are filled in
 * from the same sources: `artifacts` is parsed by a transform (a role's default, `false` to drop
 * one), so its entries are given as the image and CLI schemas; `registry` is checked by a refine,
 * so its pattern is added. Cross-field rules (a role used twice, unique deployment names) stay the
 * loader's alone.
 */
export function configJsonSchema(): JsonSchema {
  const schema = toJson(configSchema);
  const image = toJson(imageArtifactSchema);
  const cli = toJson(cliArtifactSchema);
  const cliByRole = { ...cli, required: ['role'] };
  const properties = schema.properties!;
  properties['$schema'] = { type: 'string', description: 'the JSON Schema editors check this file with' };
  properties['registry'] = {
    ...properties['registry'],
    pattern: `^(?:oci-layout:.+|${REGISTRY.source.replace(/^\^|\$$/g, '')})$`,
    description: 'where images live: a registry and namespace, or "oci-layout:<dir>" (the default)',
  };
  properties['artifacts'] = {
    type: 'object',
    description: 'what is released and how each artifact is built; false drops a role default',
    propertyNames: { pattern: ARTIFACT_NAME.source },
    properties: { cli: { anyOf: [cli, { const: false }] } },
    additionalProperties: { anyOf: [image, cliByRole, { const: false }] },
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://service-release.dev/config.schema.json',
    title: 'service-release configuration (release.config.json)',
    ...schema,
  };
}

function toJson(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}
