#!/usr/bin/env node
// The web client's static server from the compiled toolkit (lib/). The web image runs the esbuild
// bundle of the same entry instead.
await import('../lib/service/web/server/main.js');
