#!/usr/bin/env node
// The `svc` CLI from a checkout, through tsx. Users get the esbuild bundle from the archive
// (`npm run build:cli`), which bakes the version in; from here `svc --version` prints `unknown`.
import { register } from 'tsx/esm/api';

register();
await import('../src/service/svc/main.ts');
