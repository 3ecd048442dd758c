#!/usr/bin/env node
// The reference service's build command, as `release.config.ts` declares it: run by
// `release build` without a shell, in the config's folder, with SERVICE_VERSION (and
// SERVICE_CLIENT_VERSION) in the environment. The toolkit's sources are TypeScript, so tsx is
// registered first (as bin/release.js does).
//   reference-build.js image <api|worker|web> <dir>   stage an image's files (bundle, web client, Dockerfile)
//   reference-build.js cli <archive>                   pack svc with the version baked in
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./reference-build-main.ts');
process.exitCode = await main(process.argv.slice(2), process.env, process.cwd());
