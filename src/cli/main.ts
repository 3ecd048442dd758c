import { resolve } from 'node:path';
import { printError } from '../commands/output.ts';
import { parseStampArgs } from '../commands/stamp/stamp-args.ts';
import { EXIT, isReleaseError } from '../errors.ts';
import { readRepoInfo } from '../git/repo-info.ts';
import { packageVersion } from '../shared/package-root.ts';
import { type CliIo, currentIo, withIo } from '../util/cli-io.ts';
import { systemErrorAsReleaseError } from './system-error.ts';

/** For the bin: hand it SIGINT and SIGTERM (see `util/interrupt.ts`). */
export { deliverSignal } from '../util/interrupt.ts';

/**
 * The `release` entry point. Returns the exit code instead of exiting so tests and embedders can
 * call it; only bin/release.js sets process.exitCode. This is the one place errors become codes.
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
  try {
    // `release stamp` with plain arguments, the first command of every CI job, runs without
    // loading commander; anything else (help, a refusal, every other command) goes through it.
    const stamp = argv[0] === 'stamp' ? parseStampArgs(argv.slice(1)) : undefined;
    if (stamp) {
      // Its git questions need nothing the stamp's code does: they run while that code loads.
      const repoRead = readRepoInfo(resolve(currentIo().cwd, stamp.cwd ?? '.'));
      const { runStamp } = await import('../commands/stamp/run-stamp.ts');
      await runStamp(stamp, repoRead);
      return EXIT.ok;
    }
    const { runProgram } = await import('./program.ts');
    return await runProgram(argv);
  } catch (thrown) {
    const json = argv.includes('--json');
    const error = systemErrorAsReleaseError(thrown) ?? thrown;
    // A command that has already printed its verdict (verify's report, one JSON document) only
    // needs its exit code; printing the error too would add a second document to stdout.
    if (isReleaseError(error) && error.reported) return error.exitCode;
    printError(error, json);
    return (error as { exitCode?: number }).exitCode ?? EXIT.internal;
  }
}
