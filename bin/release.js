#!/usr/bin/env -S node --
// `--` ends node's own options: Node 20 scans the whole command line for `--env-file` (even after
// the script) and would load the named file into the environment, or exit 9 if it is missing.
// `release stamp --env-file <path>` must reach us untouched.
//
// The `release` command runs the compiled toolkit in lib/ (`npm run build`; the npm scripts and
// the test suite build it first). `--version` answers before anything else loads, like `svc
// --version`: node:fs only, which Node has loaded before any user code runs.
import { readFileSync, writeSync } from 'node:fs';

const args = process.argv.slice(2);

// Only as the first argument: `release promote --version v1.2.0` names a version to promote.
if (args[0] === '--version' || args[0] === '-V') {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  // Straight to file descriptor 1: process.stdout would first load Node's stream modules.
  writeSync(1, `release ${version}\n`);
} else {
  // SIGINT (Ctrl-C) and SIGTERM, from the first moment: a run that can stop cleanly (a promotion)
  // takes the first one, finishes or undoes the writes under way, prints its outcome and returns
  // 130 or 143. Otherwise, or on a second signal, stop at once with that code, as the shell
  // reports a killed process (with --json, after an error document). A promotion stopped that
  // way is finished or undone by the next command that opens the store (its journal).
  let deliver = () => false;
  let stopping = false;
  let finished = false;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ]) {
    process.on(signal, () => {
      // The command has returned and printed its result: only open handles keep Node alive (a
      // registry connection closing). Its outcome stands; exit with it rather than claim a stop.
      if (finished) process.exit(process.exitCode);
      if (deliver(signal)) {
        stopping = true;
        process.stderr.write(`release: ${signal}: finishing the writes under way, then stopping\n`);
        return;
      }
      process.stderr.write(`release: ${signal}${stopping ? ' again' : ''}: stopping now\n`);
      if (args.includes('--json')) {
        const message = `stopped by ${signal}${stopping ? ' again, before the writes under way were finished' : ''}`;
        const error = { code: 'INTERRUPTED', message, exitCode: code, signal, stage: 'stopped-at-once' };
        writeSync(1, `${JSON.stringify({ error }, null, 2)}\n`);
      }
      process.exit(code);
    });
  }
  const load = (path) =>
    import(path).catch((error) => {
      // A checkout that has not been built yet: say how, rather than print a module stack.
      if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('/lib/release/')) {
        process.stderr.write('release: lib/ is not built; run `npm run build` in the toolkit checkout\n');
        process.exit(70);
      }
      throw error;
    });
  // `release stamp`, every CI job's first command, from a bundle of its own (a few files); it
  // answers undefined when its arguments need the whole program (help, a refusal).
  let code;
  if (args[0] === 'stamp') {
    const { stampMain, deliverSignal } = await load('../lib/release/stamp/stamp-main.js');
    deliver = deliverSignal;
    code = await stampMain(args);
  }
  if (code === undefined) {
    const { main, deliverSignal } = await load('../lib/release/main.js');
    deliver = deliverSignal;
    code = await main(args);
  }
  process.exitCode = code;
  finished = true;
  // Reads abandoned by the stop (a request in flight) must not keep the process alive.
  if (stopping) process.exit(process.exitCode);
}
