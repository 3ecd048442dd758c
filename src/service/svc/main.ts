// The `svc` entry point. `--version` must answer before anything else loads (spec section 4: it
// short-circuits, works offline and is fast), so this file imports nothing but the baked constant
// and node:fs, which Node has loaded before any user code runs. Everything else is imported only
// when needed — in the bundle (build/bundle-svc.ts) that code is present but not evaluated.
// No top-level await: the bundle is CommonJS, which starts faster (see bundle-svc.ts).
import { writeSync } from 'node:fs';
import { pendingUpdate } from './update/pending-update.ts';
import { SVC_VERSION } from './version.ts';

declare const __SVC_BUNDLED__: boolean | undefined;

const args = process.argv.slice(2);
const end = args.indexOf('--');
const flags = end === -1 ? args : args.slice(0, end);

// An `svc update` killed part-way leaves its directory beside the package: finish or undo it
// before anything else (update/recover-on-start.ts). Nothing interrupted costs one stat(2).
const interrupted = typeof __SVC_BUNDLED__ === 'boolean' ? pendingUpdate(__dirname) : undefined;
if (interrupted) {
  import('./update/recover-on-start.ts').then(({ recoverOnStart }) => recoverOnStart(interrupted)).then(run);
} else {
  run();
}

function run(): void {
  if (flags.includes('--version') || flags.includes('-V')) {
    printLine(`svc ${SVC_VERSION}\n`);
  } else {
    import('./run.ts')
      .then(({ main }) => main(args))
      .then((code) => {
        process.exitCode = code;
      });
  }
}

/**
 * Write straight to file descriptor 1: `process.stdout` would first build a stream for the pipe
 * or terminal (Node's net, stream and tty modules), most of what `--version` would otherwise cost
 * above Node's own start-up.
 */
function printLine(line: string): void {
  const bytes = Buffer.from(line);
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(1, bytes, done);
  } catch (error) {
    // A non-blocking pipe that is full: let the stream wait for it. A closed one (EPIPE): nobody
    // is reading, and there is nothing useful left to do.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') process.stdout.write(line);
  }
}
