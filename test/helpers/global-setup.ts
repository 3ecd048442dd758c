import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Before any test file: compile src/ to lib/ (JavaScript only, about a second), so every test
 * that starts a bin (`release`, `svc`, `service-api`...) as a subprocess runs the code as it is
 * now, never a stale build. Tests that call `main()` in process use the sources directly.
 */
export default function setup(): void {
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url)), '--js-only'],
    {
      stdio: 'inherit',
    },
  );
}
