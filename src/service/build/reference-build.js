#!/usr/bin/env node
// The reference service's build command, as `release.config.ts` declares it: run by
// `release build` without a shell, in the config's folder, with SERVICE_VERSION (and
// SERVICE_CLIENT_VERSION) in the environment. It runs the compiled build (lib/, as installed, and
// as `npm run build` leaves a checkout); from a checkout never built, tsx runs the sources.
//   reference-build.js image <api|worker|web> <dir>   stage an image's files (bundle, web client, Dockerfile)
//   reference-build.js cli <archive>                   pack svc with the version baked in
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(
  new URL('../../../lib/service/build/reference-build-main.js', import.meta.url),
);
const { main } = existsSync(compiled)
  ? await import(pathToFileURL(compiled).href)
  : await import('tsx/esm/api').then(({ register }) => {
      register();
      return import('./reference-build-main.ts');
    });
process.exitCode = await main(process.argv.slice(2), process.env, process.cwd());
