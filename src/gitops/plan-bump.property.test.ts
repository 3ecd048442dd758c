import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { applyEdits } from './apply-edits.ts';
import type { ManifestKind } from './gitops-types.ts';
import { planBump } from './plan-bump.ts';
import { plainTree } from './tree.ts';

// Hostile or odd deployment files: any JSON-shaped tree, sprinkled with the keys the planner looks
// for, in any kind. The planner never throws, and every edit it plans can be written and reads back.
const KEYS = [
  'image',
  'repository',
  'tag',
  'digest',
  'containers',
  'env',
  'name',
  'value',
  'services',
  'images',
  'newTag',
  'global',
  'acmeVersion',
  'SERVICE_VERSION',
];
const VALUES = [
  'acme/api',
  'ghcr.io/acme/api:v1',
  'acme/api:v1@sha256:' + 'e'.repeat(64),
  '',
  'SERVICE_VERSION',
  'v1',
];
const tree = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...VALUES),
    fc.integer(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('node'), { maxKeys: 5 }),
  ),
})).node;
const KIND = fc.constantFrom<ManifestKind>('values', 'kustomization', 'kubernetes', 'compose', 'other');

describe('planBump (property)', () => {
  it('never throws on odd trees, and every planned edit is written exactly', () => {
    fc.assert(
      fc.property(tree, KIND, fc.boolean(), (value, kind, pin) => {
        const text = stringify(value);
        const docs = parseAllDocuments(text);
        if (!Array.isArray(docs)) return;
        const file = {
          path: 'f.yaml',
          kind,
          text,
          docs: docs.map((d) => plainTree(d.contents)),
          chart: 'Chart.yaml',
        };
        const chart = {
          path: 'Chart.yaml',
          kind: 'chart' as const,
          text: 'appVersion: v1\n',
          docs: [{ appVersion: 'v1' }],
        };
        const plan = planBump([file, chart], {
          tag: 'v2',
          images: [{ artifacts: ['api', 'worker'], image: 'acme/api', digest: `sha256:${'f'.repeat(64)}` }],
          versionVariables: ['SERVICE_VERSION'],
          pinDigest: pin,
          mode: 'bump',
        });
        const mine = plan.edits.filter((e) => e.file === 'f.yaml');
        if (mine.length > 0) expect(() => applyEdits(text, mine)).not.toThrow();
      }),
      { numRuns: 400, seed: 4343 },
    );
  });
});
