#!/usr/bin/env node
// The web client's static server from a checkout, through tsx. The web image runs the esbuild
// bundle of src/service/web/server/main.ts instead, which needs no loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/service/web/server/main.ts');
process.exitCode = await main();
