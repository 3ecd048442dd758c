// The Action's entry (built to dist-action/index.js by scripts/build-action.mjs).
import { runAction } from './run-action.ts';

process.exitCode = await runAction();
