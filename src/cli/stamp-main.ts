import { resolve } from 'node:path';
import { parseStampArgs } from '../commands/stamp/stamp-args.ts';
import { currentIo } from '../console/cli-io.ts';
import { EXIT } from '../errors.ts';
import { readRepoInfo } from '../git/repo-info.ts';
import { failureExitCode } from './failure-exit-code.ts';

/** For the bin: hand it SIGINT and SIGTERM (see `processes/interrupt.ts`). */
export { deliverSignal } from '../processes/interrupt.ts';

/**
 * `release stamp` with plain arguments, the first command of every CI job, without commander:
 * its exit code, or undefined when the arguments need commander (help, a refusal) and `main`
 * must run them. The bin loads this from a bundle of its own (lib/release/stamp/), a few files
 * rather than the two dozen chunks the stamp's modules make in the bundle of every command.
 */
export async function stampMain(argv: string[]): Promise<number | undefined> {
  const options = argv[0] === 'stamp' ? parseStampArgs(argv.slice(1)) : undefined;
  if (!options) return undefined;
  try {
    // Its git questions need nothing the stamp's code does: they run while that code loads.
    const repoRead = readRepoInfo(resolve(currentIo().cwd, options.cwd ?? '.'));
    const { runStamp } = await import('../commands/stamp/run-stamp.ts');
    await runStamp(options, repoRead);
    return EXIT.ok;
  } catch (thrown) {
    return failureExitCode(thrown, argv);
  }
}
