#!/usr/bin/env -S node --
// `--` ends node's own options: Node 20 scans the whole command line for `--env-file` (even after
// the script) and would load the named file into the environment, or exit 9 if it is missing.
// `release stamp --env-file <path>` must reach us untouched.
//
// The `release` command runs the compiled toolkit in lib/ (`npm run build`; the npm scripts and
// the test suite build it first). `--version` answers before anything else loads, like `svc
// --version`: node:fs only, which Node has loaded before any user code runs.
import { readFileSync, writeSync } from 'node:fs';

const args = process.argv.slice(2);

// Only as the first argument: `release promote --version v1.2.0` names a version to promote.
if (args[0] === '--version' || args[0] === '-V') {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  // Straight to file descriptor 1: process.stdout would first load Node's stream modules.
  writeSync(1, `release ${version}\n`);
} else {
  const { main } = await import('../lib/release/main.js').catch((error) => {
    // A checkout that has not been built yet: say how, rather than print a module stack.
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('/lib/release/main.js')) {
      process.stderr.write('release: lib/ is not built; run `npm run build` in the toolkit checkout\n');
      process.exit(70);
    }
    throw error;
  });
  process.exitCode = await main(args);
}
