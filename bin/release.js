#!/usr/bin/env -S node --
// `--` ends node's own options: Node 20 scans the whole command line for `--env-file` (even after
// the script) and would load the named file into the environment, or exit 9 if it is missing.
// `release stamp --env-file <path>` must reach us untouched.
// The `release` command. The toolkit runs its TypeScript sources through tsx so there is no build
// step between a checkout and a working command; the shipped artifacts (svc, api, worker, web)
// are bundled separately and never pay for this loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
