#!/usr/bin/env node
// The reference worker from the compiled toolkit (lib/). Images run the esbuild bundle of the same
// entry instead.
await import('../lib/service/worker/main.js');
