import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The compiled module (the suite's global setup builds lib/), so the config loads the same in a
// test's process and in a `release` subprocess, where Node cannot import TypeScript.
const REFERENCE = fileURLToPath(new URL('../../lib/service/release-artifacts.js', import.meta.url));

/**
 * Write `release.config.mjs` into a test project that releases the reference service, as this
 * repository's own release.config.ts does: `referenceArtifacts()` from the toolkit, with
 * `config`'s other keys, and per-artifact keys of `config.artifacts` merged over the reference.
 */
export function writeReferenceConfig(dir: string, config: Record<string, unknown> = {}): void {
  const { artifacts = {}, ...rest } = config as { artifacts?: Record<string, object> };
  writeFileSync(
    join(dir, 'release.config.mjs'),
    `import { referenceArtifacts } from ${JSON.stringify(REFERENCE)};
const reference = referenceArtifacts();
const overrides = ${JSON.stringify(artifacts)};
for (const [name, value] of Object.entries(overrides)) reference[name] = { ...reference[name], ...value };
export default { ...${JSON.stringify(rest)}, artifacts: reference };
`,
  );
}
