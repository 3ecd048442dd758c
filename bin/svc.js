#!/usr/bin/env node
// The `svc` CLI from the compiled toolkit (lib/). Users get the esbuild bundle from the archive
// (`npm run build:cli`), which bakes the version in; from here `svc --version` prints `unknown`.
await import('../lib/service/svc/main.js');
