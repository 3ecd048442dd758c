#!/usr/bin/env node
// The web client's static server from a checkout, through tsx. The web image runs the esbuild
// bundle of the same entry instead, which needs no loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/service/web/server/main.ts');
