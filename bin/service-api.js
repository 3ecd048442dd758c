#!/usr/bin/env node
// The reference API server from a checkout, through tsx. Images run the esbuild bundle of the same
// entry instead, which needs no loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/service/api/main.ts');
