import { Command, CommanderError } from 'commander';
import { printJson } from '../commands/output.ts';
import { currentIo } from '../console/cli-io.ts';
import { EXIT } from '../errors.ts';
import { printableLines } from '../text/printable.ts';
import { commandDefinitions, defineProgram } from './commands.ts';

/**
 * Every command through commander: its help, its refusals (unknown option, bad choice, missing
 * argument: exit 2, with `--json` a usage document on stdout), then the command's run. What the
 * run throws is the caller's to turn into an exit code (main.ts).
 */
export async function runProgram(argv: string[]): Promise<number> {
  const { stdout, stderr } = currentIo();
  const program = defineProgram(new Command('release'))
    // Commander repeats what it refuses (`unknown option '<arg>'`): written as every line is.
    .configureOutput({
      writeOut: (text) => stdout.write(printableLines(text)),
      writeErr: (text) => stderr.write(printableLines(text)),
    })
    .addHelpText('after', "\n  release --version (-V) prints the toolkit's own version.")
    .exitOverride()
    .showHelpAfterError();
  for (const define of commandDefinitions) define(program);
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (thrown) {
    if (!(thrown instanceof CommanderError)) throw thrown;
    // Commander has already printed its message; --help is an "error" to it, a success to us.
    if (thrown.exitCode === 0) return EXIT.ok;
    // With --json a script reads stdout: it gets the usage error as a document too.
    if (argv.includes('--json')) printJson({ error: usageDocument(thrown, argv, program) });
    return EXIT.usage;
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
