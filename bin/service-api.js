#!/usr/bin/env node
// The reference API server from the compiled toolkit (lib/). Images run the esbuild bundle of the
// same entry instead.
await import('../lib/service/api/main.js');
