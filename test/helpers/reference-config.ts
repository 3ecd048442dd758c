import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REFERENCE = fileURLToPath(new URL('../../src/service/release-artifacts.ts', import.meta.url));

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
