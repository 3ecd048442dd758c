import { Command, CommanderError } from 'commander';
import { printError, printJson } from '../commands/output.ts';
import { EXIT, isReleaseError } from '../errors.ts';
import { packageVersion } from '../shared/package-root.ts';
import { type CliIo, currentIo, withIo } from '../util/cli-io.ts';
import { commandDefinitions, defineProgram } from './commands.ts';
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
  const { stdout, stderr } = currentIo();
  // Only as the first argument: `release promote --version v1.2.0` names a version to promote.
  if (argv[0] === '--version' || argv[0] === '-V') {
    stdout.write(`release ${packageVersion()}\n`);
    return EXIT.ok;
  }
  const program = defineProgram(new Command('release'))
    .configureOutput({ writeOut: (text) => stdout.write(text), writeErr: (text) => stderr.write(text) })
    .addHelpText('after', "\n  release --version (-V) prints the toolkit's own version.")
    .exitOverride()
    .showHelpAfterError();
  for (const define of commandDefinitions) define(program);
  for (const command of program.commands) command.exitOverride();

  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (thrown) {
    const json = argv.includes('--json');
    if (thrown instanceof CommanderError) {
      // Commander has already printed its message; --help is an "error" to it, a success to us.
      if (thrown.exitCode === 0) return EXIT.ok;
      // With --json a script reads stdout: it gets the usage error as a document too.
      if (json) printJson({ error: usageDocument(thrown, argv, program) });
      return EXIT.usage;
    }
    const error = systemErrorAsReleaseError(thrown) ?? thrown;
    // A command that has already printed its verdict (verify's report, one JSON document) only
    // needs its exit code; printing the error too would add a second document to stdout.
    if (isReleaseError(error) && error.reported) return error.exitCode;
    printError(error, json);
    return (error as { exitCode?: number }).exitCode ?? EXIT.internal;
  }
}

/** Commander's refusal (unknown option, bad choice, missing argument) as the `--json` error. */
function usageDocument(error: CommanderError, argv: string[], program: Command) {
  const names = new Set(program.commands.map((c) => c.name()));
  const command = argv.find((a) => names.has(a));
  return {
    code: 'USAGE_INVALID',
    message: error.message.replace(/^error: /, ''),
    hint: `see \`release ${command ? `${command} ` : ''}--help\``,
    exitCode: EXIT.usage,
    commander: error.code,
  };
}
