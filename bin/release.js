#!/usr/bin/env node
// The `release` command. The toolkit runs its TypeScript sources through tsx so there is no build
// step between a checkout and a working command; the shipped artifacts (svc, api, worker, web)
// are bundled separately and never pay for this loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
