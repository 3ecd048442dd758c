// The `svc` entry point. `--version` must answer before anything else loads (spec section 4: it
// short-circuits, works offline and is fast), so this file imports nothing but the baked constant:
// no config, no network, no builtin modules. Everything else is imported only when needed — in the
// bundle (build/bundle-svc.ts) that code is present but not evaluated, builtins included.
// No top-level await: the bundle is CommonJS, which starts faster (see bundle-svc.ts).
import { SVC_VERSION } from './version.ts';

const args = process.argv.slice(2);
const end = args.indexOf('--');
const flags = end === -1 ? args : args.slice(0, end);

if (flags.includes('--version') || flags.includes('-V')) {
  process.stdout.write(`svc ${SVC_VERSION}\n`);
} else {
  import('./run.ts')
    .then(({ main }) => main(args))
    .then((code) => {
      process.exitCode = code;
    });
}
