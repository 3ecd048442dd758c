import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder of this run's own, for what test files share within one run (`packedPackage`). */
    runDir: string;
  }
}

/**
 * Before any test file: compile src/ to lib/ (JavaScript only, about a second), so every test
 * that starts a bin (`release`, `svc`, `service-api`...) as a subprocess runs the code as it is
 * now, never a stale build. Tests that call `main()` in process use the sources directly.
 * Then a folder for this run, removed after it, where files share what is costly to make.
 */
export default function setup(project: TestProject): () => void {
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url)), '--js-only'],
    {
      stdio: 'inherit',
    },
  );
  const runDir = mkdtempSync(join(tmpdir(), 'sr-test-run-'));
  project.provide('runDir', runDir);
  return () => rmSync(runDir, { recursive: true, force: true });
}
