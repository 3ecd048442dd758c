#!/usr/bin/env node
// The reference worker from a checkout, through tsx. Images run the esbuild bundle of the same
// entry instead, which needs no loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/service/worker/main.ts');
