import { type CliIo, currentIo, withIo } from '../console/cli-io.ts';
import { EXIT } from '../errors.ts';
import { packageVersion } from '../files/package-root.ts';
import { failureExitCode } from './failure-exit-code.ts';
import { stampMain } from './stamp-main.ts';

/** For the bin: hand it SIGINT and SIGTERM (see `processes/interrupt.ts`). */
export { deliverSignal } from '../processes/interrupt.ts';

/**
 * The `release` entry point. Returns the exit code instead of exiting so tests and embedders can
 * call it; only bin/release.js sets process.exitCode. Errors become codes in failure-exit-code.ts.
 *
 * `io` replaces what the run would otherwise take from the process (working directory,
 * environment, stdout, stderr): tests run commands in process with a temp directory and collect
 * the output, several at once if they like, without touching the process's own state.
 */
export function main(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  return withIo(io, () => run(argv));
}

async function run(argv: string[]): Promise<number> {
  const { stdout } = currentIo();
  // Only as the first argument: `release promote --version v1.2.0` names a version to promote.
  if (argv[0] === '--version' || argv[0] === '-V') {
    stdout.write(`release ${packageVersion()}\n`);
    return EXIT.ok;
  }
  const stamped = await stampMain(argv);
  if (stamped !== undefined) return stamped;
  try {
    const { runProgram } = await import('./program.ts');
    return await runProgram(argv);
  } catch (thrown) {
    return failureExitCode(thrown, argv);
  }
}
